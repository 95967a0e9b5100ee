package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay that requires TLS ({@code requireSecureTransport}, MySQL's {@code
 * require_secure_transport=ON}): the MySQL 9.7 {@code mysql} client and Connector/J logging in
 * without TLS get exactly what a MySQL 9.7 server with {@code require_secure_transport=ON} answers
 * (3159 after a right password, 1045 for a wrong one), a TLS client is served, and a real replica
 * attached over TLS keeps replicating under load while the plain clients are refused.
 */
@ExtendWith(ServerFarmExtension.class)
class RequiredTlsIT {
  private static final Logger LOG = LoggerFactory.getLogger(RequiredTlsIT.class);
  private static final Duration CATCH_UP = Duration.ofMinutes(2);

  @TempDir Path dir;

  /** What plain (non-TLS) clients get from one server. */
  private record Refusals(
      int mysqlExit, String mysqlOutput, String connectorJ, String connectorJWrongPassword) {}

  @Test
  void plainLoginsGetMysqlsRefusalWhileAReplicaKeepsReplicating(ServerFarm farm) throws Exception {
    DatabaseServer primary = farm.start(ServerVersion.MYSQL_9_7, "primary");
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(2_000).withRate(50);
    load.prepare();
    try (ServingRelay relay =
        ServingRelay.follow(primary, dir, s -> {}, c -> c.requireSecureTransport(true))) {
      ReplicationLink.establish(
          replica,
          farm.backend().hostPortForServers(relay.port()),
          Credentials.REPLICATION,
          "relay");
      Replicas.awaitExecuted(replica, primary.executedGtidSet(), CATCH_UP);

      Refusals fromRelay;
      List<Refusals> during = new ArrayList<>();
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<SysbenchResult> running = pool.submit(() -> load.run(Duration.ofSeconds(10)));
        fromRelay = refusals(relay.port(), true);
        while (!running.isDone()) {
          during.add(refusals(relay.port(), false));
          assertThat(tlsVersion(relay.port()))
              .as("a TLS client is served")
              .isEqualTo("9.7.4-binlog-relay");
          Replicas.sleep(500);
        }
        LOG.info("sysbench {}", running.get(60, TimeUnit.SECONDS));
      } finally {
        pool.shutdownNow();
      }
      LOG.info(
          "relay refused plain clients {} times during the load: {}", during.size() + 1, fromRelay);
      assertThat(during)
          .isNotEmpty()
          .allSatisfy(
              r ->
                  assertThat(r)
                      .isEqualTo(
                          new Refusals(
                              fromRelay.mysqlExit(),
                              fromRelay.mysqlOutput(),
                              fromRelay.connectorJ(),
                              null)));

      long ms = Replicas.lag(primary, replica, CATCH_UP);
      LOG.info("FIGURE replica of a TLS-only relay caught up {} ms after the load", ms);
      assertThat(replica.executedGtidSet()).isEqualTo(primary.executedGtidSet());
      assertThat(TableChecksums.of(replica, "sbtest"))
          .isEqualTo(TableChecksums.of(primary, "sbtest"));
      assertThat(ReplicaStatus.of(replica).lastIoErrno()).isZero();

      // The reference: the replica, itself a MySQL 9.7 server, told to require secure transport.
      // The harness
      // connects without TLS, so this is the test's last use of it.
      replica.execute("SET GLOBAL require_secure_transport = ON");
      Refusals fromMysql = refusals(replica.address().port(), true);
      LOG.info("MySQL 9.7 with require_secure_transport=ON: {}", fromMysql);
      assertThat(fromMysql.connectorJ()).startsWith("3159 HY000 ");
      assertThat(fromMysql.connectorJWrongPassword()).startsWith("1045 28000 ");
      assertThat(fromRelay).isEqualTo(fromMysql);
    }
  }

  /**
   * Plain logins as {@code repl}: the mysql client and Connector/J with the right password,
   * Connector/J with a wrong one.
   */
  private static Refusals refusals(int port, boolean wrongPassword) {
    CommandResult mysql =
        RealClients.mysql(
            port,
            "repl",
            "repl-pass",
            "--ssl-mode=DISABLED",
            "--get-server-public-key",
            "-e",
            "SELECT 1");
    String wrong = wrongPassword ? connectorJ(port, "not-the-password") : null;
    return new Refusals(
        mysql.exitCode(), mysql.output().strip(), connectorJ(port, "repl-pass"), wrong);
  }

  /** "code state message" of Connector/J's refusal without TLS, or "connected: version". */
  private static String connectorJ(int port, String password) {
    try (Connection c =
        DriverManager.getConnection(
            "jdbc:mysql://127.0.0.1:"
                + port
                + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true&connectTimeout=10000",
            "repl",
            password)) {
      return "connected: " + c.getMetaData().getDatabaseProductVersion();
    } catch (SQLException e) {
      return e.getErrorCode() + " " + e.getSQLState() + " " + e.getMessage();
    }
  }

  private static String tlsVersion(int port) throws SQLException {
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:mysql://127.0.0.1:" + port + "/?sslMode=REQUIRED&connectTimeout=10000",
                "repl",
                "repl-pass");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@version")) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }
}
