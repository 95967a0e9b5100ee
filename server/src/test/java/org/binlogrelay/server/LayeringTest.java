package org.binlogrelay.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** server/ wires upstream, storage and downstream; it never reaches into the CLI (STYLE.md section 1). */
@AnalyzeClasses(packages = "org.binlogrelay", importOptions = LayeringTest.MainClassesOnly.class)
class LayeringTest {

  @ArchTest
  static final ArchRule noCli =
      noClasses()
          .that()
          .resideInAPackage("org.binlogrelay.server..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.binlogrelay.cli..");

  /** Production classes only, whatever the build directory is called. */
  static final class MainClassesOnly implements ImportOption {
    @Override
    public boolean includes(com.tngtech.archunit.core.importer.Location location) {
      return !location.contains("/test-classes/");
    }
  }
}
