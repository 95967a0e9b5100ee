package com.example.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.binlogrelay.testcontainers.BinlogRelayContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mysql.MySQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * MySQL primary -> binlog-relay -> MySQL replica, each in a container on one network: rows written
 * on the primary reach the replica through the relay, and CHECKSUM TABLE agrees.
 */
@Testcontainers
class ReplicationThroughRelayTest {

  // The images: any MySQL 8.4/9.x image, and the relay's image built from its docker/Dockerfile.
  static final DockerImageName MYSQL =
      DockerImageName.parse(System.getProperty("mysql.image", "mysql:9.7"))
          .asCompatibleSubstituteFor("mysql");
  static final DockerImageName RELAY =
      DockerImageName.parse(System.getProperty("relay.image", "binlog-relay:latest"));

  static final Network network = Network.newNetwork();

  @Container
  static final MySQLContainer primary =
      new MySQLContainer(MYSQL)
          .withNetwork(network)
          .withUsername("root")
          .withPassword("root-pass")
          .withCommand("--server-id=1", "--gtid-mode=ON", "--enforce-gtid-consistency=ON")
          .withInitScript("primary-init.sql"); // creates the relay's replication account

  @Container
  static final BinlogRelayContainer relay =
      new BinlogRelayContainer(RELAY)
          .withPrimary(primary) // same network; the relay starts after the primary
          .withPrimaryCredentials("repl", "repl-pass")
          .withReplicaAccount("replica", "replica-pass");

  @Container
  static final MySQLContainer replica =
      new MySQLContainer(MYSQL)
          .withNetwork(network)
          .withUsername("root")
          .withPassword("root-pass")
          .withCommand("--server-id=2", "--gtid-mode=ON", "--enforce-gtid-consistency=ON");

  @AfterAll
  static void closeNetwork() {
    network.close();
  }

  @Test
  void replicaReplicatingFromTheRelayHasThePrimarysRows() throws Exception {
    try (Connection p = connect(primary);
        Connection r = connect(replica)) {
      // The replica follows the relay as it would follow the primary: by GTID auto-position, over
      // TLS (the relay offers a generated certificate; MySQL 9 wants TLS for caching_sha2_password).
      execute(
          r,
          "CHANGE REPLICATION SOURCE TO SOURCE_HOST='" + relay.getNetworkAlias() + "',"
              + " SOURCE_PORT=" + BinlogRelayContainer.REPLICA_PORT + ","
              + " SOURCE_USER='replica', SOURCE_PASSWORD='replica-pass',"
              + " SOURCE_AUTO_POSITION=1, SOURCE_SSL=1, SOURCE_CONNECT_RETRY=1",
          "START REPLICA");

      execute(p, "CREATE TABLE shop.orders (id INT PRIMARY KEY AUTO_INCREMENT, item VARCHAR(40))");
      try (PreparedStatement insert = p.prepareStatement("INSERT INTO shop.orders (item) VALUES (?)")) {
        for (int i = 0; i < 100; i++) {
          insert.setString(1, "item-" + i);
          insert.executeUpdate();
        }
      }

      // The relay has everything the primary executed ...
      relay.waitUntilCaughtUp(p, Duration.ofSeconds(60));
      // ... and the replica executes it: wait for the primary's GTID set on the replica.
      String primaryGtids = query(p, "SELECT @@GLOBAL.gtid_executed");
      assertEquals("0", query(r, "SELECT WAIT_FOR_EXECUTED_GTID_SET('" + primaryGtids + "', 60)"));

      assertEquals(query(p, "CHECKSUM TABLE shop.orders", 2), query(r, "CHECKSUM TABLE shop.orders", 2));
    }
  }

  static Connection connect(MySQLContainer server) throws SQLException {
    return DriverManager.getConnection(
        server.getJdbcUrl() + "?allowPublicKeyRetrieval=true&useSSL=false", "root", "root-pass");
  }

  static void execute(Connection connection, String... statements) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  static String query(Connection connection, String sql) throws SQLException {
    return query(connection, sql, 1);
  }

  static String query(Connection connection, String sql, int column) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getString(column);
    }
  }
}
