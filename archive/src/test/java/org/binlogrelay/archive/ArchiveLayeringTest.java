package org.binlogrelay.archive;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * archive/ talks to object storage and reads the store's files; it knows nothing of the relay
 * process (serving, admin API, metrics) nor of Netty (STYLE.md section 1).
 */
@AnalyzeClasses(
    packages = "org.binlogrelay",
    importOptions = ArchiveLayeringTest.MainClassesOnly.class)
class ArchiveLayeringTest {

  @ArchTest
  static final ArchRule noRelayProcess =
      noClasses()
          .that()
          .resideInAPackage("org.binlogrelay.archive..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.binlogrelay.server..",
              "org.binlogrelay.cli..",
              "org.binlogrelay.bench..",
              "io.netty..",
              "io.micrometer..",
              "com.fasterxml.jackson..")
          .because("archive/ is used by server/, never the other way round")
          .allowEmptyShould(true);

  /** Production classes only, whatever the build directory is called. */
  static final class MainClassesOnly implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("/test-classes/");
    }
  }
}
