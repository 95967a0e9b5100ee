package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.server.upstream.TlsConfig;
import org.binlogrelay.server.upstream.TlsMode;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS to the primary: MySQL 9.7 with the certificates it generates in its data directory, MariaDB
 * 10.11 with certificates made by openssl in the test. Each accepted mode replicates byte for byte
 * over TLS; a certificate the mode refuses, and a primary without TLS where TLS is required, stop
 * the relay with a clear error.
 */
@ExtendWith(ServerFarmExtension.class)
class UpstreamTlsIT {
  private static final Logger LOG = LoggerFactory.getLogger(UpstreamTlsIT.class);

  @Test
  void mysqlRequiredAndVerifyCaWithTheServersOwnCertificates(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    DatabaseServer primary = farm.start(ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary"));
    Path data = primary.binlogDir().getParent().resolve("data");
    Path ca = data.resolve("ca.pem");
    LOG.info(
        "MySQL's client key starts with: {}",
        Files.readAllLines(data.resolve("client-key.pem")).get(0));
    primary.execute("CREATE DATABASE tls", "CREATE TABLE tls.t (id INT PRIMARY KEY)");
    primary.execute(
        "CREATE USER 'x509repl'@'%' IDENTIFIED BY 'x509-pass' REQUIRE X509",
        "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'x509repl'@'%'");

    replicatesOverTls(
        primary, dir.resolve("required"), b -> b.tls(TlsConfig.of(TlsMode.REQUIRED)), 1);
    replicatesOverTls(
        primary, dir.resolve("verify-ca"), b -> b.tls(TlsConfig.verify(TlsMode.VERIFY_CA, ca)), 2);
    replicatesOverTls(
        primary,
        dir.resolve("x509"),
        b ->
            b.tls(
                TlsConfig.verify(TlsMode.VERIFY_CA, ca)
                    .withClientCertificate(
                        data.resolve("client-cert.pem"), data.resolve("client-key.pem"))),
        3,
        "x509repl",
        "x509-pass");

    refused(
        primary,
        dir.resolve("identity"),
        b -> b.tls(TlsConfig.verify(TlsMode.VERIFY_IDENTITY, ca)),
        "certificate refused");
    Path other = TlsFiles.otherCa(dir.resolve("other"));
    refused(
        primary,
        dir.resolve("other-ca"),
        b -> b.tls(TlsConfig.verify(TlsMode.VERIFY_CA, other)),
        "certificate refused");
  }

  @Test
  void mariadbWithCertificatesMadeByOpenssl(ServerFarm farm, @TempDir Path dir) throws Exception {
    TlsFiles files = TlsFiles.make(dir.resolve("certs"));
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MARIADB_10_11)
                .named("primary")
                .withOptions(
                    "--ssl-ca=" + files.ca(),
                    "--ssl-cert=" + files.serverCert(),
                    "--ssl-key=" + files.serverKey()));
    primary.execute("CREATE DATABASE tls", "CREATE TABLE tls.t (id INT PRIMARY KEY)");
    primary.execute(
        "CREATE USER 'x509repl'@'%' IDENTIFIED BY 'x509-pass' REQUIRE X509",
        "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'x509repl'@'%'");

    replicatesOverTls(
        primary, dir.resolve("required"), b -> b.tls(TlsConfig.of(TlsMode.REQUIRED)), 1);
    replicatesOverTls(
        primary,
        dir.resolve("verify-identity"),
        b -> b.tls(TlsConfig.verify(TlsMode.VERIFY_IDENTITY, files.ca())),
        2);
    replicatesOverTls(
        primary,
        dir.resolve("x509-pkcs8"),
        b ->
            b.tls(
                TlsConfig.verify(TlsMode.VERIFY_CA, files.ca())
                    .withClientCertificate(files.clientCert(), files.clientKeyPkcs8())),
        3,
        "x509repl",
        "x509-pass");
    replicatesOverTls(
        primary,
        dir.resolve("x509-pkcs1"),
        b ->
            b.tls(
                TlsConfig.of(TlsMode.REQUIRED)
                    .withClientCertificate(files.clientCert(), files.clientKeyPkcs1())),
        4,
        "x509repl",
        "x509-pass");
    Path other = TlsFiles.otherCa(dir.resolve("other"));
    refused(
        primary,
        dir.resolve("other-ca"),
        b -> b.tls(TlsConfig.verify(TlsMode.VERIFY_IDENTITY, other)),
        "certificate refused");
  }

  @Test
  void aPrimaryWithoutTlsIsRefusedWhenTlsIsRequiredAndUsedPlainWhenPreferred(
      ServerFarm farm, @TempDir Path dir) throws Exception {
    DatabaseServer primary =
        farm.start(ServerSpec.of(ServerVersion.MARIADB_10_11).named("primary"));
    primary.execute("CREATE DATABASE tls", "CREATE TABLE tls.t (id INT PRIMARY KEY)");
    UpstreamState failed =
        refused(
            primary,
            dir.resolve("required"),
            b -> b.tls(TlsConfig.of(TlsMode.REQUIRED)),
            "does not offer TLS");
    assertThat(failed.lastError()).contains("nothing was sent");
    try (UpstreamUnderTest relay =
        UpstreamUnderTest.follow(
            primary, dir.resolve("preferred"), b -> b.tls(TlsConfig.of(TlsMode.PREFERRED)))) {
      primary.execute("INSERT INTO tls.t VALUES (1)");
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      assertThat(relay.state().tls()).as("plain TCP").isNull();
      relay.assertIdenticalToPrimary();
    }
  }

  private static void replicatesOverTls(
      DatabaseServer primary, Path dir, Consumer<UpstreamConfig.Builder> tls, int row)
      throws Exception {
    replicatesOverTls(primary, dir, tls, row, null, null);
  }

  private static void replicatesOverTls(
      DatabaseServer primary,
      Path dir,
      Consumer<UpstreamConfig.Builder> tls,
      int row,
      String user,
      String password)
      throws Exception {
    Consumer<UpstreamConfig.Builder> tweak =
        user == null ? tls : tls.andThen(b -> b.credentials(user, password));
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir, tweak)) {
      primary.execute("INSERT INTO tls.t VALUES (" + row + ")");
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      UpstreamState s = relay.state();
      LOG.info("TLS {} ({}): {}", relay.config().tls(), user == null ? "repl" : user, s);
      assertThat(s.tls()).as("the connection is TLS").isNotNull().startsWith("TLSv1.");
      relay.assertIdenticalToPrimary();
    }
  }

  private static UpstreamState refused(
      DatabaseServer primary, Path dir, Consumer<UpstreamConfig.Builder> tls, String reason)
      throws Exception {
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir, tls)) {
      UpstreamState failed = relay.awaitStatus(UpstreamStatus.FAILED, UpstreamScenarios.CONNECT);
      LOG.info("TLS {} refused as expected: {}", relay.config().tls(), failed.lastError());
      assertThat(failed.lastError()).contains(reason);
      assertThat(relay.store().files()).isEmpty();
      return failed;
    }
  }
}
