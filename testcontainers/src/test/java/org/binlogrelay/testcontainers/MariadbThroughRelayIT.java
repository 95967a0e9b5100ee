package org.binlogrelay.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.output.Slf4jLogConsumer;
import org.testcontainers.mariadb.MariaDBContainer;

/**
 * A MariaDB 11.8 primary container, a relay container and a MariaDB 11.8 replica container
 * replicating from the relay with {@code MASTER_USE_GTID=slave_pos} over the relay's generated TLS
 * certificate, which the replica verifies (the {@code mysql_native_password} account the container
 * makes for a MariaDB primary lets it).
 */
@Tag(
    "docker") // needs the engine and the local images: scripts/test-all runs it in its docker stage
class MariadbThroughRelayIT {
  private static final String ROOT_PASSWORD = "root-pass";
  private static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void replicaThroughTheRelayHasThePrimarysRows() throws Exception {
    try (Network network = Network.newNetwork();
        MariaDBContainer primary = mariadb(network, "primary", 1, "--log-bin=mariadb-bin");
        BinlogRelayContainer relay =
            new BinlogRelayContainer(Sql.localImage("relay.image", "binlog-relay:ci"))
                .withPrimary(primary)
                .withPrimaryCredentials("repl", "repl-pass")
                .withReplicaAccount("replica", "replica-pass")
                .withLogConsumer(new Slf4jLogConsumer(LoggerFactory.getLogger("tc.relay")));
        MariaDBContainer replica = mariadb(network, "replica", 3)) {
      primary.start();
      try (Connection p = connect(primary)) {
        Sql.run(
            p,
            "CREATE USER 'repl'@'%' IDENTIFIED BY 'repl-pass'",
            "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%'",
            "CREATE DATABASE app",
            "CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(40))",
            "USE app",
            "INSERT INTO app.t SELECT seq, CONCAT('row-', seq) FROM seq_1_to_500");
      }
      relay.start();
      replica.start();
      try (Connection p = connect(primary);
          Connection r = connect(replica)) {
        Sql.run(
            r,
            "CHANGE MASTER TO MASTER_HOST='"
                + relay.getNetworkAlias()
                + "', MASTER_PORT="
                + BinlogRelayContainer.REPLICA_PORT
                + ", MASTER_USER='replica', MASTER_PASSWORD='replica-pass',"
                + " MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
            "START SLAVE");
        Sql.run(p, "UPDATE app.t SET v = CONCAT(v, '!') WHERE id % 5 = 0");

        relay.waitUntilCaughtUp(p, WAIT);
        String primaryGtids = BinlogRelayContainer.executedGtids(p);
        Sql.awaitReplica(r, primaryGtids, WAIT);
        assertThat(Sql.checksum(r, "app.t")).isEqualTo(Sql.checksum(p, "app.t"));
        assertThat(Sql.string(r, "SELECT COUNT(*) FROM app.t")).isEqualTo("500");
        // over TLS, the relay's generated certificate verified by the replica
        assertThat(Sql.replicaStatus(r, "Master_SSL_Allowed")).isEqualTo("Yes");
        assertThat(Sql.replicaStatus(r, "Master_SSL_Verify_Server_Cert")).isEqualTo("Yes");
      }
    }
  }

  private static MariaDBContainer mariadb(
      Network network, String name, int serverId, String... extra) {
    String[] command = new String[extra.length + 1];
    command[0] = "--server-id=" + serverId;
    System.arraycopy(extra, 0, command, 1, extra.length);
    return new MariaDBContainer(
            Sql.localImage("mariadb.image", "binlog-relay-ci/mariadb:11.8")
                .asCompatibleSubstituteFor("mariadb"))
        .withUsername("root")
        .withPassword(ROOT_PASSWORD)
        .withNetwork(network)
        .withNetworkAliases(name)
        .withCommand(command);
  }

  private static Connection connect(MariaDBContainer server) throws SQLException {
    return DriverManager.getConnection(
        "jdbc:mariadb://" + server.getHost() + ":" + server.getMappedPort(3306) + "/",
        "root",
        ROOT_PASSWORD);
  }
}
