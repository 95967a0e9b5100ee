package org.binlogrelay.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * bench/ is a replica client over protocol/: no store, no server, no relayctl (STYLE.md section 1).
 */
@AnalyzeClasses(
    packages = "org.binlogrelay",
    importOptions = BenchLayeringTest.MainClassesOnly.class)
class BenchLayeringTest {

  @ArchTest
  static final ArchRule onlyProtocol =
      noClasses()
          .that()
          .resideInAPackage("org.binlogrelay.bench..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.binlogrelay.storage..",
              "org.binlogrelay.server..",
              "org.binlogrelay.cli..",
              "com.github.shyiko..",
              "io.netty.channel..",
              "io.netty.bootstrap..")
          .because(
              "bench/ speaks the MySQL protocol to any source through protocol/ and plain sockets only");

  @ArchTest
  static final ArchRule protocolDoesNotKnowBench =
      noClasses()
          .that()
          .resideInAPackage("org.binlogrelay.protocol..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.binlogrelay.bench..");

  /** Production classes only, whatever the build directory is called. */
  static final class MainClassesOnly implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("/test-classes/");
    }
  }
}
