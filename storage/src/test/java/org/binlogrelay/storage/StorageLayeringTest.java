package org.binlogrelay.storage;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** storage/ knows files and nothing about sockets (STYLE.md section 1). */
@AnalyzeClasses(
    packages = "org.binlogrelay",
    importOptions = StorageLayeringTest.MainClassesOnly.class)
class StorageLayeringTest {

  @ArchTest
  static final ArchRule noSockets =
      noClasses()
          .that()
          .resideInAPackage("org.binlogrelay.storage..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "java.net..",
              "java.nio.channels.spi..",
              "io.netty.bootstrap..",
              "io.netty.channel..",
              "org.binlogrelay.server..",
              "org.binlogrelay.cli..",
              "org.binlogrelay.archive..",
              "software.amazon..",
              "com.github.luben..")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("java.nio.channels.SocketChannel")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("java.nio.channels.ServerSocketChannel")
          .because("storage/ knows files; sockets belong to server/, object storage to archive/")
          // The rule must also hold while the module is still empty of production classes.
          .allowEmptyShould(true);

  /** Production classes only, whatever the build directory is called. */
  static final class MainClassesOnly implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("/test-classes/");
    }
  }
}
