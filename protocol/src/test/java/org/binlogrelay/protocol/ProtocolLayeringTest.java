package org.binlogrelay.protocol;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** protocol/ knows bytes: no sockets, no files, no other module (STYLE.md section 1). */
@AnalyzeClasses(
    packages = "org.binlogrelay",
    importOptions = ProtocolLayeringTest.MainClassesOnly.class)
class ProtocolLayeringTest {

  @ArchTest
  static final ArchRule noSocketsNoFiles =
      noClasses()
          .that()
          .resideInAPackage("org.binlogrelay.protocol..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "java.net..",
              "java.nio.channels..",
              "java.nio.file..",
              "io.netty.bootstrap..",
              "io.netty.channel.socket..",
              "io.netty.channel.epoll..",
              "io.netty.channel.nio..")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("java.io.File")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("java.io.RandomAccessFile")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("java.io.FileInputStream")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("java.io.FileOutputStream")
          .because("protocol/ knows bytes only; sockets belong to server/, files to storage/");

  @ArchTest
  static final ArchRule noOtherModules =
      noClasses()
          .that()
          .resideInAPackage("org.binlogrelay.protocol..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "org.binlogrelay.storage..", "org.binlogrelay.server..", "org.binlogrelay.cli..");

  /** Production classes only, whatever the build directory is called. */
  static final class MainClassesOnly implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("/test-classes/");
    }
  }
}
