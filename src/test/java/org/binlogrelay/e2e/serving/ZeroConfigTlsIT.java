package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.downstream.RealClients;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Zero-configuration TLS with real servers and clients: a relay started without a certificate
 * generates one, and
 *
 * <ul>
 *   <li>a MariaDB 11.8 replica at its defaults ({@code CHANGE MASTER TO ...
 *       MASTER_USE_GTID=slave_pos} without any {@code MASTER_SSL} option: {@code
 *       Master_SSL_Allowed=Yes}, {@code Master_SSL_Verify_Server_Cert=Yes}), which failed with "SSL
 *       is required, but the server does not support it" against a relay without TLS, replicates
 *       over TLS from a relay of a MariaDB 10.11 and of an 11.8 primary, to the same CHECKSUM
 *       TABLE;
 *   <li>it and MariaDB 11.8's {@code mariadb} client (Connector/C 3.4, which verifies by default)
 *       trust the generated certificate through the password: at {@code 127.1} (127.0.0.1 spelt so
 *       that Connector/C does not take it for a local connection, which it lets pass without any
 *       check, as it would a remote host) a mysql_native_password login, whose OK proves the
 *       certificate, is accepted, and a caching_sha2_password login, which has no proof, is not;
 *       the certificate's fingerprint pins it ({@code --ssl-fp});
 *   <li>a relay whose account has another password refuses the replica and the client as usual
 *       (1045);
 *   <li>a MySQL 9.7 replica ({@code SOURCE_SSL} left at its default) replicates through such a
 *       relay over TLS, as it does through a relay with a configured certificate, and MySQL's
 *       {@code mysql} client and Connector/J log in over TLS with a mysql_native_password account,
 *       ignoring the proof in the OK.
 * </ul>
 */
@ExtendWith(ServerFarmExtension.class)
class ZeroConfigTlsIT {
  private static final Logger LOG = LoggerFactory.getLogger(ZeroConfigTlsIT.class);
  private static final Duration CATCH_UP = Duration.ofMinutes(2);

  /**
   * A caching_sha2_password account: no certificate proof, so a verifying MariaDB client must not
   * trust the relay.
   */
  private static final Credentials SHA2 = new Credentials("sha", "sha-pass");

  private static final String GENERATED_SUBJECT =
      "CN=binlog-relay_Auto_Generated_Server_Certificate";

  @TempDir Path dir;

  @MariadbSeriesTest
  void aMariadb118ReplicaAtItsDefaultsReplicatesOverTlsTrustingTheGeneratedCertificate(
      ServerVersion series, ServerFarm farm) throws Exception {
    DatabaseServer primary = farm.start(series, "primary");
    DatabaseServer replica = farm.start(ServerVersion.MARIADB_11_8, "replica");
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(2_000).withRate(50);
    load.prepare();
    String accounts =
        account(Credentials.REPLICATION.user(), NativePasswordHash.of("repl-pass").storedForm())
            + account(
                SHA2.user(),
                CachingSha2Hash.create(SHA2.password(), 5000, new SecureRandom()).storedForm());
    try (ServingRelay relay =
        ServingRelay.follow(
            primary, dir, s -> {}, c -> c.tls(null).accounts(UserAccounts.parse(accounts)))) {
      assertThat(relay.tlsCertificate().getSubjectX500Principal().getName())
          .isEqualTo(GENERATED_SUBJECT);
      HostAndPort at = farm.backend().hostPortForServers(relay.port());

      // The reproduction: no MASTER_SSL option, MASTER_HOST='127.0.0.1'.
      ReplicationLink.establish(replica, at, Credentials.REPLICATION, "relay");
      Replicas.awaitExecuted(replica, primary.executedGtidSet(), CATCH_UP);
      ReplicaStatus status = ReplicaStatus.of(replica);
      assertThat(status.columns())
          .containsEntry("Master_SSL_Allowed", "Yes")
          .containsEntry("Master_SSL_Verify_Server_Cert", "Yes");
      long tlsLogins = relay.tlsLogins();
      assertThat(tlsLogins).as("the replica logged in over TLS").isPositive();

      // The same replica at a host it does not take for a local one: it checks the certificate, by
      // the proof.
      HostAndPort checked = nonLocal(at);
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<SysbenchResult> running = pool.submit(() -> load.run(Duration.ofSeconds(15)));
        replica.execute(
            "STOP SLAVE", "CHANGE MASTER TO MASTER_HOST='" + checked.host() + "'", "START SLAVE");
        awaitTlsLoginAfter(relay, tlsLogins);
        LOG.info("sysbench {}", running.get(2, TimeUnit.MINUTES));
      } finally {
        pool.shutdownNow();
      }
      long ms = Replicas.lag(primary, replica, CATCH_UP);
      LOG.info(
          "FIGURE MariaDB 11.8 replica of a {} primary through a relay with a generated certificate caught"
              + " up {} ms after the load",
          series,
          ms);
      status = ReplicaStatus.of(replica);
      assertThat(status.lastIoErrno()).as(status.summary()).isZero();
      assertThat(status.columns()).containsEntry("Master_Host", checked.host());
      assertThat(replica.executedGtidSet()).isEqualTo(primary.executedGtidSet());
      assertThat(TableChecksums.of(replica, "sbtest"))
          .isEqualTo(TableChecksums.of(primary, "sbtest"));

      mariadbClientTrustsTheRelayByThePassword(relay, checked);
    }
  }

  /**
   * MariaDB 11.8's client: verifying by default, it takes the proof of a native login and nothing
   * less.
   */
  private static void mariadbClientTrustsTheRelayByThePassword(
      ServingRelay relay, HostAndPort checked) throws Exception {
    Credentials repl = Credentials.REPLICATION;
    CommandResult local =
        RealClients.mariadb118(
            "127.0.0.1", relay.port(), repl.user(), repl.password(), "-N", "-e", "SELECT 1");
    assertThat(local.exitCode()).as(local.output()).isZero();
    assertThat(local.output().strip()).isEqualTo("1");
    CommandResult proved =
        RealClients.mariadb118(
            checked.host(), relay.port(), repl.user(), repl.password(), "-N", "-e", "SELECT 1");
    assertThat(proved.exitCode()).as(proved.output()).isZero();
    assertThat(proved.output().strip()).isEqualTo("1");
    CommandResult session =
        RealClients.mariadb118(
            checked.host(),
            relay.port(),
            repl.user(),
            repl.password(),
            "-N",
            "-e",
            "SHOW SESSION STATUS LIKE 'Ssl_version'");
    assertThat(session.output())
        .as("the relay's view of the session")
        .matches("(?s)Ssl_version\\tTLSv1\\.[23]\\s*");

    CommandResult unproved =
        RealClients.mariadb118(
            checked.host(), relay.port(), SHA2.user(), SHA2.password(), "-N", "-e", "SELECT 1");
    LOG.info(
        "caching_sha2_password login at {} (no proof): {}",
        checked.host(),
        unproved.output().strip());
    assertThat(unproved.exitCode()).isNotZero();
    assertThat(unproved.output()).contains("ERROR 2026").contains("verify the server certificate");
    CommandResult unprovedUnchecked =
        RealClients.mariadb118(
            checked.host(),
            relay.port(),
            SHA2.user(),
            SHA2.password(),
            "--skip-ssl-verify-server-cert",
            "-N",
            "-e",
            "SELECT 1");
    assertThat(unprovedUnchecked.exitCode())
        .as("the same login without verification: " + unprovedUnchecked.output())
        .isZero();

    String fingerprint =
        HexFormat.ofDelimiter(":")
            .withUpperCase()
            .formatHex(
                MessageDigest.getInstance("SHA-256").digest(relay.tlsCertificate().getEncoded()));
    CommandResult pinned =
        RealClients.mariadb118(
            checked.host(),
            relay.port(),
            SHA2.user(),
            SHA2.password(),
            "--ssl-fp=" + fingerprint,
            "-N",
            "-e",
            "SELECT 1");
    assertThat(pinned.exitCode())
        .as("pinned by the logged fingerprint: " + pinned.output())
        .isZero();
    String other = (fingerprint.startsWith("00") ? "11" : "00") + fingerprint.substring(2);
    CommandResult wrongPin =
        RealClients.mariadb118(
            checked.host(),
            relay.port(),
            repl.user(),
            repl.password(),
            "--ssl-fp=" + other,
            "-N",
            "-e",
            "SELECT 1");
    assertThat(wrongPin.exitCode()).isNotZero();
    assertThat(wrongPin.output()).contains("ERROR 2026").contains("Fingerprint");
  }

  @Test
  void aRelayWithAnotherPasswordRefusesTheReplicaAsUsual(ServerFarm farm) throws Exception {
    DatabaseServer primary = farm.start(ServerVersion.MARIADB_10_11, "primary");
    DatabaseServer replica = farm.start(ServerVersion.MARIADB_11_8, "replica");
    String accounts =
        account(
            Credentials.REPLICATION.user(), NativePasswordHash.of("not-repl-pass").storedForm());
    // The replica retries every second with the wrong password: no blocking of its host here
    // (LoginSecurityIT).
    try (ServingRelay relay =
        ServingRelay.follow(
            primary,
            dir,
            s -> {},
            c ->
                c.tls(null)
                    .accounts(UserAccounts.parse(accounts))
                    .loginThrottle(100_000, Duration.ofMinutes(1), Duration.ofSeconds(1)))) {
      HostAndPort at = farm.backend().hostPortForServers(relay.port());
      ReplicationLink.establish(replica, at, Credentials.REPLICATION, "relay");
      ReplicaStatus refused = Replicas.awaitIoError(replica, CATCH_UP);
      LOG.info(
          "replica with a password the relay does not know: {} {}",
          refused.lastIoErrno(),
          refused.lastIoError());
      assertThat(refused.lastIoErrno()).isEqualTo(1045);
      assertThat(refused.lastIoError())
          .contains("Access denied for user 'repl'@'127.0.0.1' (using password: YES)");
      assertThat(relay.tlsLogins()).isZero();
      CommandResult client =
          RealClients.mariadb118("127.0.0.1", relay.port(), "repl", "repl-pass", "-e", "SELECT 1");
      assertThat(client.exitCode()).isNotZero();
      assertThat(client.output())
          .contains(
              "ERROR 1045 (28000): Access denied for user 'repl'@'127.0.0.1'"
                  + " (using password: YES)");
    }
  }

  @Test
  void aMysql97ReplicaReplicatesThroughARelayWithAGeneratedCertificate(ServerFarm farm)
      throws Exception {
    DatabaseServer primary = farm.start(ServerVersion.MYSQL_9_7, "primary");
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(2_000).withRate(50);
    load.prepare();
    try (ServingRelay relay = ServingRelay.follow(primary, dir, s -> {}, c -> c.tls(null))) {
      assertThat(relay.tlsCertificate().getSubjectX500Principal().getName())
          .isEqualTo(GENERATED_SUBJECT);
      ReplicationLink.establish(
          replica,
          farm.backend().hostPortForServers(relay.port()),
          Credentials.REPLICATION,
          "relay");
      Replicas.awaitExecuted(replica, primary.executedGtidSet(), CATCH_UP);
      long replicaLogins = relay.tlsLogins();
      assertThat(replicaLogins).as("MySQL replicas use TLS when offered").isPositive();

      // MySQL clients ignore the certificate proof in the OK of a mysql_native_password login over
      // TLS.
      CommandResult mysql =
          RealClients.mysql(
              relay.port(),
              ServingRelay.PLAIN.user(),
              ServingRelay.PLAIN.password(),
              "--ssl-mode=REQUIRED",
              "-N",
              "-e",
              "SELECT CURRENT_USER()");
      assertThat(mysql.exitCode()).as(mysql.output()).isZero();
      assertThat(mysql.output()).contains("plain@%");
      try (Connection c =
              DriverManager.getConnection(
                  "jdbc:mysql://127.0.0.1:"
                      + relay.port()
                      + "/?sslMode=REQUIRED&connectTimeout=10000",
                  ServingRelay.PLAIN.user(),
                  ServingRelay.PLAIN.password());
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT CURRENT_USER()")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("plain@%");
      }
      assertThat(relay.tlsLogins()).isGreaterThanOrEqualTo(replicaLogins + 2);
      LOG.info("sysbench {}", load.run(Duration.ofSeconds(10)));
      long ms = Replicas.lag(primary, replica, CATCH_UP);
      LOG.info(
          "FIGURE MySQL 9.7 replica through a relay with a generated certificate caught up {} ms after the"
              + " load",
          ms);
      assertThat(ReplicaStatus.of(replica).lastIoErrno()).isZero();
      assertThat(replica.executedGtidSet()).isEqualTo(primary.executedGtidSet());
      assertThat(TableChecksums.of(replica, "sbtest"))
          .isEqualTo(TableChecksums.of(primary, "sbtest"));
    }
  }

  private static String account(String user, String hash) {
    return user + "@% REPLICATION_SLAVE,REPLICATION_CLIENT " + hash + "\n";
  }

  /**
   * {@code at} spelt so that MariaDB's client checks the certificate: {@code 127.1} for the local
   * backend's {@code 127.0.0.1} (the same address; Connector/C skips the check for the literal
   * {@code 127.0.0.1} and {@code ::1}), the Docker backend's host name as it is.
   */
  private static HostAndPort nonLocal(HostAndPort at) {
    return at.host().equals("127.0.0.1") ? new HostAndPort("127.1", at.port()) : at;
  }

  private static void awaitTlsLoginAfter(ServingRelay relay, long before)
      throws InterruptedException {
    eventually(
        Duration.ofSeconds(60),
        "a TLS login after the replica's host change",
        relay::tlsLogins,
        logins -> logins > before);
  }
}
