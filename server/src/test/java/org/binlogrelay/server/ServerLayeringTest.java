package org.binlogrelay.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * server/ wires upstream, storage and downstream; it never reaches into the CLI (STYLE.md section
 * 1).
 */
@AnalyzeClasses(
    packages = "org.binlogrelay",
    importOptions = ServerLayeringTest.MainClassesOnly.class)
class ServerLayeringTest {

  @ArchTest
  static final ArchRule noCli =
      noClasses()
          .that()
          .resideInAPackage("org.binlogrelay.server..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.binlogrelay.cli..");

  /** The object store stays behind archive/: the server talks to org.binlogrelay.archive only. */
  @ArchTest
  static final ArchRule noObjectStoreClient =
      noClasses()
          .that()
          .resideInAPackage("org.binlogrelay.server..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("software.amazon..", "com.github.luben..");

  /**
   * The admin API and the meters read the relay's parts; only the composition root knows them all.
   */
  @ArchTest
  static final ArchRule adminAndMetricsDoNotReachIntoTheCompositionRoot =
      noClasses()
          .that()
          .resideInAnyPackage("org.binlogrelay.server.admin..", "org.binlogrelay.server.metrics..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.binlogrelay.server");

  /**
   * Replication code knows no metrics library and no HTTP: the server maps its counters to meters.
   */
  @ArchTest
  static final ArchRule replicationKnowsNoMetricsOrHttp =
      noClasses()
          .that()
          .resideInAnyPackage(
              "org.binlogrelay.server.upstream..",
              "org.binlogrelay.server.serving..",
              "org.binlogrelay.server.downstream..",
              "org.binlogrelay.storage..",
              "org.binlogrelay.protocol..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.micrometer..",
              "io.netty.handler.codec.http..",
              "com.fasterxml.jackson..",
              "org.binlogrelay.server.admin..",
              "org.binlogrelay.server.metrics..");

  /**
   * The statement responder knows the schema source only through {@code sql.SchemaStatements}, its
   * one dispatch point; the schema source's pool uses the upstream client, never the other way
   * round.
   */
  @ArchTest
  static final ArchRule schemaSourceBehindOneInterface =
      noClasses()
          .that()
          .resideInAnyPackage(
              "org.binlogrelay.server.downstream.sql..", "org.binlogrelay.server.upstream..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.binlogrelay.server.downstream.schema..");

  /** Production classes only, whatever the build directory is called. */
  static final class MainClassesOnly implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("/test-classes/");
    }
  }
}
