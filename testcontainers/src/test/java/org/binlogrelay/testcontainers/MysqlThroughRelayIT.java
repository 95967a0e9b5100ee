package org.binlogrelay.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.mysql.MySQLContainer;

/**
 * A MySQL 9.7 primary container, a relay container following it and a MySQL 9.7 replica container
 * replicating from the relay by GTID auto-position, all on one network: what a user's replication
 * test looks like. One topology for the class (three container starts); each test writes its own
 * table, so they do not depend on each other's order.
 */
@Tag(
    "docker") // needs the engine and the local images: scripts/test-all runs it in its docker stage
class MysqlThroughRelayIT {
  private static final String ROOT_PASSWORD = "root-pass";
  private static final Duration WAIT = Duration.ofSeconds(90);

  private static Network network;
  private static MySQLContainer primary;
  private static BinlogRelayContainer relay;
  private static MySQLContainer replica;

  @BeforeAll
  static void startTopology() throws SQLException {
    network = Network.newNetwork();
    primary = mysql("primary", 1);
    primary.start();
    try (Connection c = connect(primary)) {
      Sql.run(
          c,
          "CREATE USER 'repl'@'%' IDENTIFIED BY 'repl-pass'",
          "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%'",
          "CREATE DATABASE app");
    }
    relay =
        new BinlogRelayContainer(Sql.localImage("relay.image", "binlog-relay:ci"))
            .withPrimary(primary)
            .withPrimaryCredentials("repl", "repl-pass")
            .withReplicaAccount("replica", "replica-pass")
            .withRelayOption("heartbeat-period", "500ms")
            .withLogConsumer(new Slf4jLogConsumer(LoggerFactory.getLogger("tc.relay")));
    relay.start();
    replica = mysql("replica", 3);
    replica.start();
    try (Connection c = connect(replica)) {
      Sql.run(
          c,
          "CHANGE REPLICATION SOURCE TO SOURCE_HOST='"
              + relay.getNetworkAlias()
              + "', SOURCE_PORT="
              + BinlogRelayContainer.REPLICA_PORT
              + ", SOURCE_USER='replica', SOURCE_PASSWORD='replica-pass',"
              + " SOURCE_AUTO_POSITION=1, SOURCE_SSL=1, SOURCE_CONNECT_RETRY=1,"
              + " SOURCE_RETRY_COUNT=600",
          "START REPLICA");
    }
  }

  @AfterAll
  static void stopTopology() {
    for (AutoCloseable c : new AutoCloseable[] {replica, relay, primary, network}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // keep stopping the others
        }
      }
    }
  }

  private static MySQLContainer mysql(String name, int serverId) {
    return new MySQLContainer(
            Sql.localImage("mysql.image", "binlog-relay-ci/mysql:9.7")
                .asCompatibleSubstituteFor("mysql"))
        .withUsername("root")
        .withPassword(ROOT_PASSWORD)
        .withEnv(
            "MYSQL_INITDB_SKIP_TZINFO", "1") // the official image's switch: a faster first start
        .withNetwork(network)
        .withNetworkAliases(name)
        .withCommand("--server-id=" + serverId, "--gtid-mode=ON", "--enforce-gtid-consistency=ON");
  }

  private static Connection connect(MySQLContainer server) throws SQLException {
    return DriverManager.getConnection(
        "jdbc:mysql://"
            + server.getHost()
            + ":"
            + server.getMappedPort(3306)
            + "/?allowPublicKeyRetrieval=true&useSSL=false",
        "root",
        ROOT_PASSWORD);
  }

  @Test
  void replicaThroughTheRelayHasThePrimarysRows() throws Exception {
    try (Connection p = connect(primary);
        Connection r = connect(replica)) {
      Sql.run(
          p,
          "CREATE TABLE app.orders (id INT PRIMARY KEY AUTO_INCREMENT, item VARCHAR(40), qty INT)");
      try (PreparedStatement insert =
          p.prepareStatement("INSERT INTO app.orders (item, qty) VALUES (?, ?)")) {
        for (int i = 0; i < 200; i++) {
          insert.setString(1, "item-" + i);
          insert.setInt(2, i % 7);
          insert.executeUpdate();
        }
      }
      Sql.run(p, "UPDATE app.orders SET qty = qty + 1 WHERE id % 3 = 0");

      relay.waitUntilCaughtUp(p, WAIT);
      String primaryGtids = BinlogRelayContainer.executedGtids(p);
      assertThat(GtidSetText.contains(relay.getExecutedGtids(), primaryGtids)).isTrue();
      assertThat(relay.getUpstreamState()).isEqualTo("STREAMING");
      assertThat(relay.getUpstreamLagSeconds()).isPresent();
      assertThat(relay.getMetrics()).contains("binlogrelay_");

      Sql.awaitReplica(r, primaryGtids, WAIT);
      assertThat(Sql.checksum(r, "app.orders")).isEqualTo(Sql.checksum(p, "app.orders"));
      assertThat(Sql.string(r, "SELECT COUNT(*) FROM app.orders")).isEqualTo("200");
      assertThat(Sql.replicaStatus(r, "Source_SSL_Allowed")).isEqualTo("Yes");
    }
  }

  @Test
  void relayKilledDuringWritesLosesNothing() throws Exception {
    try (Connection p = connect(primary);
        Connection r = connect(replica)) {
      Sql.run(
          p, "CREATE TABLE app.events (id INT PRIMARY KEY AUTO_INCREMENT, payload VARCHAR(200))");
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicInteger committed = new AtomicInteger();
      ExecutorService executor = Executors.newSingleThreadExecutor();
      try {
        Future<Integer> writer =
            executor.submit(
                () -> {
                  int rows = 0;
                  try (Connection w = connect(primary);
                      PreparedStatement insert =
                          w.prepareStatement("INSERT INTO app.events (payload) VALUES (?)")) {
                    while (writing.get() || rows < 300) {
                      insert.setString(1, "event-" + rows + "-" + "x".repeat(150));
                      insert.executeUpdate();
                      rows++;
                      committed.set(rows);
                    }
                  }
                  return rows;
                });
        // The relay is killed while transactions stream in, and restarted while they still do.
        relay.waitUntilCaughtUp(
            BinlogRelayContainer.executedGtids(p), WAIT); // at least the CREATE TABLE
        relay.kill();
        int atKill = committed.get();
        relay.restartAfterKill();
        int atRestart = committed.get();
        writing.set(false);
        int rows = writer.get();
        // the primary committed while the relay was down, and after it came back
        assertThat(atRestart).isGreaterThan(atKill);
        assertThat(rows).isGreaterThan(atRestart).isGreaterThanOrEqualTo(300);

        relay.waitUntilCaughtUp(p, WAIT);
        String primaryGtids = BinlogRelayContainer.executedGtids(p);
        Sql.awaitReplica(r, primaryGtids, WAIT);
        assertThat(Sql.string(r, "SELECT COUNT(*) FROM app.events"))
            .isEqualTo(Integer.toString(rows));
        assertThat(Sql.checksum(r, "app.events")).isEqualTo(Sql.checksum(p, "app.events"));
      } finally {
        writing.set(false);
        executor.shutdownNow();
      }
    }
  }
}
