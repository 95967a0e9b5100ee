package org.binlogrelay.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** cli/ talks to the relay only through its admin HTTP API (STYLE.md section 1). */
@AnalyzeClasses(packages = "org.binlogrelay", importOptions = CliLayeringTest.MainClassesOnly.class)
class CliLayeringTest {

  @ArchTest
  static final ArchRule onlyHttp =
      noClasses()
          .that()
          .resideInAPackage("org.binlogrelay.cli..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.binlogrelay.protocol..",
              "org.binlogrelay.storage..",
              "org.binlogrelay.server..",
              "io.netty..",
              "java.nio.channels..")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("java.net.Socket")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("java.net.ServerSocket")
          .because("relayctl is a client of the admin API (java.net.http) and nothing else");

  /** Production classes only, whatever the build directory is called. */
  static final class MainClassesOnly implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("/test-classes/");
    }
  }
}
