package org.binlogrelay.e2e.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 20: what a JDBC client or CDC connector (Debezium's MySQL connector over MySQL Connector/J;
 * MariaDB Connector/J for MariaDB) sends before it opens its binlog stream, against the primary and
 * against a relay in front of it: every statement answers with the primary's shape, and with its
 * values where the relay must agree (binlog position and GTIDs, binlog variables, sql_mode, GTID
 * arithmetic). Then a client opens a transaction, commits, sets the session variables connectors
 * set, and streams the binlog through the relay (mysql-binlog-connector-java's BinaryLogClient, as
 * Debezium does), receiving the primary's new transactions.
 */
@ExtendWith(ServerFarmExtension.class)
class JdbcConnectorIT {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcConnectorIT.class);
  private static final String UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

  @TempDir Path dir;

  @Test
  void connectorJAgainstMysql97(ServerFarm farm) throws Exception {
    connectorSession(farm.start(ServerVersion.MYSQL_9_7, "primary"));
  }

  @Test
  void mariadbConnectorJAgainstMariadb1011(ServerFarm farm) throws Exception {
    connectorSession(farm.start(ServerVersion.MARIADB_10_11, "primary"));
  }

  private void connectorSession(DatabaseServer primary) throws Exception {
    boolean mysql = primary.flavor() == ServerFlavor.MYSQL;
    primary.execute(
        "CREATE DATABASE inventory",
        "CREATE TABLE inventory.items (id INT PRIMARY KEY, name" + " VARCHAR(40))",
        "INSERT INTO inventory.items VALUES (1, 'one'), (2, 'two')");
    try (RelayInFront relay = RelayInFront.of(primary, dir);
        Connection p = RelayInFront.connectPrimary(primary);
        Connection r = relay.connect()) {
      relay.awaitCaughtUp(Duration.ofMinutes(2));
      List<String> sequence =
          List.of(
              "SET autocommit=1",
              "SET autocommit=0",
              "SELECT VERSION()",
              "COMMIT",
              mysql ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS",
              "SHOW BINARY LOGS",
              "SHOW GLOBAL VARIABLES LIKE 'binlog_format'",
              "SHOW GLOBAL VARIABLES LIKE 'binlog_row_image'",
              "SHOW GLOBAL VARIABLES LIKE 'GTID_MODE'",
              "SHOW VARIABLES WHERE Variable_name = 'sql_mode'",
              "SHOW VARIABLES WHERE Variable_name IN ('character_set_server','collation_server')",
              "SHOW SESSION STATUS LIKE 'Ssl_version'",
              "SELECT @@global.gtid_purged",
              "SELECT GTID_SUBTRACT('" + UUID + ":1-21','" + UUID + ":1-17')",
              "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
              "SET SESSION lock_wait_timeout=10",
              "SET SESSION innodb_lock_wait_timeout=10",
              "ROLLBACK");
      for (String sql : sequence) {
        SqlAnswer onPrimary = SqlAnswer.of(p, sql);
        SqlAnswer onRelay = SqlAnswer.of(r, sql);
        LOG.info("primary: {}\n  relay: {}", onPrimary, onRelay);
        assertThat(onRelay.errorCode())
            .as("%s\nprimary: %s\nrelay: %s", sql, onPrimary, onRelay)
            .isEqualTo(onPrimary.errorCode());
        assertThat(onRelay.columns()).as(sql).isEqualTo(onPrimary.columns());
        assertThat(onRelay.rows()).as(sql).hasSameSizeAs(onPrimary.rows());
        if (agrees(sql)) {
          assertThat(onRelay.rows()).as(sql).isEqualTo(onPrimary.rows());
        }
      }
      String version = SqlAnswer.of(p, "SELECT VERSION() AS v").value("v");
      assertThat(SqlAnswer.of(r, "SELECT VERSION() AS v").value("v"))
          .startsWith(
              version.substring(
                  0, version.indexOf('-') < 0 ? version.length() : version.indexOf('-')));
      compareBinaryLogs(p, r);
      streamThroughTheRelay(primary, relay, mysql);
    }
  }

  /** The answers whose values a relay must share with its primary. */
  private static boolean agrees(String sql) {
    return sql.contains("STATUS") && !sql.contains("Ssl")
        || sql.contains("binlog_")
        || sql.contains("GTID")
        || sql.contains("sql_mode")
        || sql.contains("gtid_purged");
  }

  /** Every file the relay stores is one of the primary's, with the primary's size. */
  private static void compareBinaryLogs(Connection p, Connection r) {
    List<Map<String, String>> primaryFiles = SqlAnswer.of(p, "SHOW BINARY LOGS").rows();
    List<Map<String, String>> relayFiles = SqlAnswer.of(r, "SHOW BINARY LOGS").rows();
    assertThat(relayFiles).isNotEmpty();
    assertThat(primaryFiles).containsAll(relayFiles);
  }

  /**
   * A CDC connector's session: a transaction, the session variables it sets, then its binlog stream
   * through the relay; the primary's next transactions arrive.
   */
  private static void streamThroughTheRelay(
      DatabaseServer primary, RelayInFront relay, boolean mysql) throws Exception {
    String startGtids;
    String startFile;
    long startPosition;
    try (Connection c = relay.connect()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        s.execute("SET SESSION lock_wait_timeout=10");
        s.execute("SET SESSION innodb_lock_wait_timeout=10");
        s.execute("SET SESSION net_write_timeout=600");
      }
      SqlAnswer status = SqlAnswer.of(c, mysql ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS");
      startFile = status.value("File");
      startPosition = Long.parseLong(status.value("Position"));
      startGtids =
          mysql
              ? status.value("Executed_Gtid_Set")
              : SqlAnswer.of(c, "SELECT @@global.gtid_binlog_pos AS g").value("g");
      c.commit();
      c.setAutoCommit(true);
    }
    BinaryLogClient client =
        new BinaryLogClient(
            "127.0.0.1",
            relay.port(),
            Credentials.REPLICATION.user(),
            Credentials.REPLICATION.password());
    client.setServerId(5151);
    client.setKeepAlive(false);
    if (mysql) {
      client.setGtidSet(startGtids);
    } else {
      client.setBinlogFilename(startFile);
      client.setBinlogPosition(startPosition);
    }
    List<String> gtids = new CopyOnWriteArrayList<>();
    client.registerEventListener(
        event -> {
          if (event.getHeader().getEventType() == EventType.GTID
              && event.getData() instanceof GtidEventData g) {
            gtids.add(g.getMySqlGtid().toString());
          } else if (event.getData() instanceof MariadbGtidEventData g) {
            gtids.add(g.toString());
          }
        });
    client.connect(30_000);
    try {
      primary.execute(
          "INSERT INTO inventory.items VALUES (3, 'three')",
          "UPDATE inventory.items SET name = 'TWO' WHERE id = 2",
          "DELETE FROM inventory.items WHERE id = 1");
      eventually(
          Duration.ofSeconds(60),
          "three transactions through the relay",
          () -> List.copyOf(gtids),
          got -> got.size() >= 3);
      LOG.info("streamed through the relay: {}", gtids);
      assertThat(gtids).hasSize(3).doesNotHaveDuplicates();
      if (mysql) {
        String uuid = primary.queryValue("SELECT @@global.server_uuid");
        assertThat(gtids).allMatch(g -> g.startsWith(uuid + ":"), "the primary's transactions");
        assertThat(primary.executedGtidSet())
            .contains(uuid + ":1-" + gtids.get(2).substring(uuid.length() + 1));
      }
    } finally {
      client.disconnect();
    }
  }
}
