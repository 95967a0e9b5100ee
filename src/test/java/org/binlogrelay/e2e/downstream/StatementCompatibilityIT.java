package org.binlogrelay.e2e.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The statements of issues 20 and 15 against a real primary and a whole relay in front of it
 * ({@link RelayInFront}), MySQL 9.7 and MariaDB 10.11, each over the flavour's own JDBC driver: the
 * shape of every answer (column names, in order) is the primary's, and the values that must agree
 * do: the binlog variables the relay mirrors, GTID function results, session variables read back
 * after SET, binlog positions and GTIDs in SHOW REPLICA STATUS, the events of SHOW BINLOG EVENTS, a
 * dump's process-list state. Transaction statements succeed on both; KILL ends a dump on the relay
 * as on the primary; a monitoring agent's session gets what it asks for; valid statements the relay
 * does not run get 1235, never 1064.
 */
@ExtendWith(ServerFarmExtension.class)
class StatementCompatibilityIT {
  private static final Logger LOG = LoggerFactory.getLogger(StatementCompatibilityIT.class);
  private static final Duration CATCH_UP = Duration.ofMinutes(2);

  /**
   * The binlog variables that describe the relay's own storage (docs/downstream.md), not the
   * primary's.
   */
  private static final Set<String> RELAY_OWN =
      Set.of(
          "binlog_error_action",
          "binlog_expire_logs_auto_purge",
          "binlog_expire_logs_seconds",
          "sync_binlog");

  private static final String UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

  @TempDir Path dir;

  @Test
  void mysql97(ServerFarm farm) throws Exception {
    compatibility(farm.start(ServerVersion.MYSQL_9_7, "primary"));
  }

  @Test
  void mariadb1011(ServerFarm farm) throws Exception {
    compatibility(farm.start(ServerVersion.MARIADB_10_11, "primary"));
  }

  private void compatibility(DatabaseServer primary) throws Exception {
    boolean mysql = primary.flavor() == ServerFlavor.MYSQL;
    primary.execute(
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))",
        "INSERT INTO d.t VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO d.t VALUES (3, 'c')",
        "UPDATE d.t SET v = 'z' WHERE id = 2");
    try (RelayInFront relay = RelayInFront.of(primary, dir);
        Connection p = RelayInFront.connectPrimary(primary);
        Connection r = relay.connect()) {
      relay.awaitCaughtUp(CATCH_UP);
      transactions(p, r);
      gtidFunctions(p, r, mysql);
      binlogVariables(p, r, mysql);
      sessionVariables(p, r, mysql);
      status(p, r, mysql);
      replicaStatus(primary, relay, p, r, mysql);
      binlogEvents(p, r);
      processListAndKill(primary, relay, p, r, mysql);
      monitoringAgent(p, relay, mysql);
      notSupported(r);
    }
  }

  /**
   * Both answer alike: both fail with the same code, or both succeed with the same column labels.
   */
  private static SqlAnswer[] same(Connection p, Connection r, String sql) {
    SqlAnswer onPrimary = SqlAnswer.of(p, sql);
    SqlAnswer onRelay = SqlAnswer.of(r, sql);
    LOG.info("primary: {}\n  relay: {}", abbreviate(onPrimary), abbreviate(onRelay));
    assertThat(onRelay.errorCode())
        .as("%s\nprimary: %s\nrelay: %s", sql, onPrimary, onRelay)
        .isEqualTo(onPrimary.errorCode());
    assertThat(onRelay.columns()).as("columns of %s", sql).isEqualTo(onPrimary.columns());
    return new SqlAnswer[] {onPrimary, onRelay};
  }

  private static String abbreviate(SqlAnswer a) {
    String s = a.toString();
    return s.length() > 600 ? s.substring(0, 600) + "..." : s;
  }

  private static void transactions(Connection p, Connection r) {
    for (String sql :
        List.of(
            "SET autocommit=1",
            "BEGIN",
            "COMMIT",
            "START TRANSACTION READ ONLY",
            "ROLLBACK",
            "START TRANSACTION WITH CONSISTENT SNAPSHOT",
            "COMMIT WORK",
            "SET autocommit=0",
            "COMMIT",
            "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            "SET TRANSACTION READ WRITE",
            "ROLLBACK",
            "SET autocommit=1")) {
      SqlAnswer[] a = same(p, r, sql);
      assertThat(a[1].failed()).as(sql + ": " + a[1]).isFalse();
    }
    SqlAnswer[] isolation = same(p, r, "SELECT @@session.autocommit");
    assertThat(isolation[1].rows()).isEqualTo(isolation[0].rows());
  }

  private static void gtidFunctions(Connection p, Connection r, boolean mysql) {
    List<String> statements =
        List.of(
            "SELECT GTID_SUBTRACT('" + UUID + ":1-21','" + UUID + ":1-17')",
            "SELECT GTID_SUBSET('" + UUID + ":1-2', '" + UUID + ":1-17') AS s",
            "SELECT GTID_SUBTRACT(@@global.gtid_executed, '') AS executed",
            "SELECT GTID_SUBSET(@@global.gtid_executed, @@global.gtid_executed) AS s",
            "SELECT GTID_SUBTRACT('bad', '')");
    for (String sql : statements) {
      SqlAnswer[] a = same(p, r, sql);
      assertThat(a[1].rows()).as(sql).isEqualTo(a[0].rows());
    }
    SqlAnswer[] executed =
        same(
            p,
            r,
            mysql
                ? "SELECT @@global.gtid_executed AS g, @@global.gtid_purged AS p"
                : "SELECT @@global.gtid_binlog_pos AS g, @@global.gtid_binlog_state AS s");
    assertThat(executed[1].rows()).isEqualTo(executed[0].rows());
    if (!mysql) {
      SqlAnswer[] pos = same(p, r, "SELECT BINLOG_GTID_POS('binlog.000001', 4) AS p");
      assertThat(pos[1].rows()).isEqualTo(pos[0].rows());
    }
  }

  private static void binlogVariables(Connection p, Connection r, boolean mysql) {
    for (String sql :
        List.of(
            "SHOW VARIABLES LIKE 'binlog%'",
            "SHOW GLOBAL VARIABLES LIKE 'max_binlog%'",
            "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('binlog_format', 'BINLOG_ROW_IMAGE', 'gtid_mode')")) {
      SqlAnswer[] a = same(p, r, sql);
      Map<String, String> primaryValues = new TreeMap<>(a[0].nameValues());
      Map<String, String> relayValues = new TreeMap<>(a[1].nameValues());
      assertThat(relayValues.keySet()).as(sql).isEqualTo(primaryValues.keySet());
      primaryValues.keySet().removeAll(RELAY_OWN);
      relayValues.keySet().removeAll(RELAY_OWN);
      assertThat(relayValues).as(sql).isEqualTo(primaryValues);
    }
    assertThat(SqlAnswer.of(r, "SHOW VARIABLES LIKE 'binlog%'").rows()).hasSize(mysql ? 23 : 14);
  }

  private static void sessionVariables(Connection p, Connection r, boolean mysql) {
    List<String> sets =
        new ArrayList<>(
            List.of(
                "SET lock_wait_timeout=10",
                "SET SESSION innodb_lock_wait_timeout=10",
                "SET net_write_timeout=600, net_read_timeout=600",
                "SET SQL_SELECT_LIMIT=DEFAULT",
                "SET NAMES utf8mb4",
                "SET character_set_results = NULL",
                "SET time_zone='+00:00'",
                "SET wait_timeout=3600, interactive_timeout=3600",
                "SET session_track_schema=1",
                "SET sql_mode='STRICT_TRANS_TABLES'"));
    sets.add(
        mysql ? "SET transaction_isolation='READ-COMMITTED'" : "SET tx_isolation='READ-COMMITTED'");
    for (String sql : sets) {
      SqlAnswer[] a = same(p, r, sql);
      assertThat(a[1].failed()).as(sql + ": " + a[1]).isFalse();
    }
    SqlAnswer[] read =
        same(
            p,
            r,
            "SELECT @@session.lock_wait_timeout AS a, @@innodb_lock_wait_timeout AS b,"
                + " @@net_write_timeout AS c, @@net_read_timeout AS d, @@sql_select_limit AS e,"
                + " @@character_set_results AS f, @@time_zone AS g, @@wait_timeout AS h, @@interactive_timeout AS i,"
                + " @@session_track_schema AS j, @@sql_mode AS k, @@"
                + (mysql ? "transaction_isolation" : "tx_isolation")
                + " AS l");
    assertThat(read[1].rows()).isEqualTo(read[0].rows());
    same(p, r, "SET SESSION sql_mode = DEFAULT");
    SqlAnswer[] sqlMode = same(p, r, "SHOW VARIABLES WHERE Variable_name = 'sql_mode'");
    assertThat(sqlMode[1].rows()).isEqualTo(sqlMode[0].rows());
  }

  private static void status(Connection p, Connection r, boolean mysql) {
    for (String sql :
        List.of(
            "SHOW GLOBAL STATUS LIKE 'Uptime'",
            "SHOW SESSION STATUS LIKE 'Ssl_version'",
            "SHOW STATUS WHERE Variable_name IN ('Uptime', 'Threads_connected', 'Com_select', 'Bytes_sent',"
                + " 'Questions', 'Connections', 'Max_used_connections')",
            "SHOW GLOBAL STATUS LIKE 'Ssl_%accepts'")) {
      SqlAnswer[] a = same(p, r, sql);
      assertThat(a[1].nameValues().keySet()).as(sql).isEqualTo(a[0].nameValues().keySet());
    }
    // The relay counts what it runs: a part of the server's Com_ counters, each named as the server
    // names it.
    SqlAnswer[] com = same(p, r, "SHOW GLOBAL STATUS LIKE 'Com_%'");
    assertThat(com[0].nameValues().keySet())
        .as("Com_ counters")
        .containsAll(com[1].nameValues().keySet());
    Map<String, String> relay = SqlAnswer.of(r, "SHOW GLOBAL STATUS").nameValues();
    assertThat(Long.parseLong(relay.get("Uptime"))).isGreaterThanOrEqualTo(0);
    assertThat(Long.parseLong(relay.get("Threads_connected"))).isGreaterThanOrEqualTo(1);
    assertThat(Long.parseLong(relay.get("Bytes_received"))).isGreaterThan(0);
    assertThat(Long.parseLong(relay.get("Com_select"))).isGreaterThan(0);
    assertThat(Long.parseLong(relay.get("Ssl_finished_accepts")))
        .as("Connector/J over TLS, MariaDB's without")
        .isEqualTo(mysql ? Long.parseLong(relay.get("Ssl_accepts")) : 0);
    assertThat(SqlAnswer.of(r, "SHOW SESSION STATUS LIKE 'Ssl_version'").value("Value"))
        .isEqualTo(SqlAnswer.of(p, "SHOW SESSION STATUS LIKE 'Ssl_version'").value("Value"));
  }

  private static void replicaStatus(
      DatabaseServer primary, RelayInFront relay, Connection p, Connection r, boolean mysql) {
    List<String> statements =
        mysql
            ? List.of("SHOW REPLICA STATUS")
            : List.of("SHOW SLAVE STATUS", "SHOW REPLICA STATUS", "SHOW ALL SLAVES STATUS");
    Position at = relay.primaryPosition();
    for (String sql : statements) {
      SqlAnswer[] a = same(p, r, sql);
      assertThat(a[0].rows()).as("the primary is no replica").isEmpty();
      Map<String, String> row = a[1].rows().get(0);
      String prefix = mysql ? "Source" : "Master";
      String replica = mysql ? "Replica" : "Slave";
      assertThat(row)
          .containsEntry(prefix + "_Host", primary.address().host())
          .containsEntry(prefix + "_Port", Integer.toString(primary.address().port()))
          .containsEntry(prefix + "_User", Credentials.REPLICATION.user())
          .containsEntry(replica + "_IO_Running", "Yes")
          .containsEntry(replica + "_SQL_Running", "Yes")
          .containsEntry(prefix + "_Log_File", at.file())
          .containsEntry("Read_" + prefix + "_Log_Pos", Long.toString(at.offset()))
          .containsEntry(prefix + "_Server_Id", Integer.toString(primary.serverId()))
          .containsEntry("Last_IO_Errno", "0");
      assertThat(Long.parseLong(row.get("Seconds_Behind_" + (mysql ? "Source" : "Master"))))
          .isBetween(0L, 60L);
      if (mysql) {
        assertThat(row.get("Retrieved_Gtid_Set").replace("\n", ""))
            .isEqualTo(primary.queryValue("SELECT @@global.gtid_executed").replace("\n", ""));
        assertThat(row)
            .containsEntry("Source_UUID", primary.queryValue("SELECT @@global.server_uuid"));
      } else {
        assertThat(row)
            .containsEntry("Gtid_IO_Pos", primary.queryValue("SELECT @@global.gtid_binlog_pos"));
      }
    }
    if (mysql) {
      for (String table :
          List.of("replication_connection_status", "replication_connection_configuration")) {
        SqlAnswer[] a = same(p, r, "SELECT * FROM performance_schema." + table);
        assertThat(a[1].rows()).hasSize(1);
      }
      SqlAnswer state =
          SqlAnswer.of(
              r,
              "SELECT SERVICE_STATE, SOURCE_UUID FROM"
                  + " performance_schema.replication_connection_status");
      assertThat(state.value("SERVICE_STATE")).isEqualTo("ON");
      SqlAnswer[] noChannel = same(p, r, "SHOW REPLICA STATUS FOR CHANNEL 'nosuch'");
      assertThat(noChannel[1].errorCode()).isEqualTo(3074);
    } else {
      SqlAnswer[] noConnection = same(p, r, "SHOW SLAVE 'nosuch' STATUS");
      assertThat(noConnection[1].errorCode()).isEqualTo(1617);
    }
  }

  private static void binlogEvents(Connection p, Connection r) {
    SqlAnswer[] a = same(p, r, "SHOW BINLOG EVENTS IN 'binlog.000001' LIMIT 40");
    assertThat(a[1].rows()).hasSameSizeAs(a[0].rows()).isNotEmpty();
    Set<String> described =
        Set.of(
            "Format_desc",
            "Previous_gtids",
            "Gtid",
            "Xid",
            "Gtid_list",
            "Binlog_checkpoint",
            "Annotate_rows",
            "Query",
            "Rotate");
    for (int i = 0; i < a[0].rows().size(); i++) {
      Map<String, String> want = new TreeMap<>(a[0].rows().get(i));
      Map<String, String> got = new TreeMap<>(a[1].rows().get(i));
      String info = want.remove("Info");
      String relayInfo = got.remove("Info");
      assertThat(got).as("event %d", i).isEqualTo(want);
      if (described.contains(want.get("Event_type")) && !info.contains("/* xid=")) {
        assertThat(relayInfo).as("Info of %s", want).isEqualTo(info);
      } else {
        assertThat(info).as("Info the relay leaves empty or shorter").startsWith(relayInfo);
      }
    }
    SqlAnswer[] limited = same(p, r, "SHOW BINLOG EVENTS FROM 4 LIMIT 1, 2");
    assertThat(limited[1].rows()).isEqualTo(limited[0].rows());
    SqlAnswer[] missing = same(p, r, "SHOW BINLOG EVENTS IN 'binlog.999999'");
    assertThat(missing[1].errorCode()).isEqualTo(1220);
  }

  private static void processListAndKill(
      DatabaseServer primary, RelayInFront relay, Connection p, Connection r, boolean mysql)
      throws Exception {
    for (String sql :
        List.of(
            "SHOW PROCESSLIST",
            "SHOW FULL PROCESSLIST",
            "SELECT * FROM information_schema.PROCESSLIST")) {
      same(p, r, sql);
    }
    BinaryLogClient client =
        new BinaryLogClient(
            "127.0.0.1",
            relay.port(),
            Credentials.REPLICATION.user(),
            Credentials.REPLICATION.password());
    client.setServerId(4343);
    client.setKeepAlive(false);
    if (mysql) {
      client.setGtidSet("");
    } else {
      client.setBinlogFilename("binlog.000001");
      client.setBinlogPosition(4);
    }
    client.connect(30_000);
    try {
      long id = client.getConnectionId();
      Map<String, String> dump = awaitProcess(r, id, "Binlog Dump", Duration.ofSeconds(30));
      assertThat(dump.get("Command")).isEqualTo(mysql ? "Binlog Dump GTID" : "Binlog Dump");
      Map<String, String> relaysDump =
          SqlAnswer.of(p, "SHOW PROCESSLIST").rows().stream()
              .filter(
                  row ->
                      "Binlog Dump".equals(row.get("Command"))
                          && Credentials.REPLICATION.user().equals(row.get("User")))
              .findFirst()
              .orElseThrow(() -> new AssertionError("the relay's dump is not on " + primary));
      assertThat(dump.get("State"))
          .as("a caught-up dump's state, as the primary shows the relay's")
          .isEqualTo(relaysDump.get("State"));
      SqlAnswer kill = SqlAnswer.of(r, "KILL " + id);
      assertThat(kill.failed()).as(kill.toString()).isFalse();
      eventually(
          Duration.ofSeconds(30),
          "the killed dump gone (client disconnected, no process row)",
          () -> !client.isConnected() && processRow(r, id).isEmpty());
    } finally {
      client.disconnect();
    }
    SqlAnswer[] unknown = same(p, r, "KILL 999999");
    assertThat(unknown[1].errorCode()).isEqualTo(1094);
    SqlAnswer[] unknownQuery = same(p, r, "KILL QUERY 999999");
    assertThat(unknownQuery[1].message().replaceFirst("^\\(conn=\\d+\\) ", ""))
        .isEqualTo(unknownQuery[0].message().replaceFirst("^\\(conn=\\d+\\) ", ""));
  }

  private static Map<String, String> awaitProcess(
      Connection r, long id, String commandPrefix, Duration timeout) throws InterruptedException {
    return eventually(
            timeout,
            "connection " + id + " dumping and caught up",
            () -> processRow(r, id),
            row ->
                row.isPresent()
                    && row.get().get("Command").startsWith(commandPrefix)
                    && row.get().get("State").contains("has sent all binlog"))
        .get();
  }

  private static Optional<Map<String, String>> processRow(Connection r, long id) {
    return SqlAnswer.of(r, "SHOW FULL PROCESSLIST").rows().stream()
        .filter(row -> Long.toString(id).equals(row.get("Id")))
        .findFirst();
  }

  /** What mysqld_exporter, PMM or a Nagios check sends on connect and then every scrape. */
  private static void monitoringAgent(Connection p, RelayInFront relay, boolean mysql)
      throws Exception {
    try (Connection agent = relay.connect()) {
      for (String sql :
          List.of(
              "SET lock_wait_timeout=2",
              "SHOW GLOBAL STATUS",
              "SHOW GLOBAL VARIABLES",
              mysql ? "SHOW REPLICA STATUS" : "SHOW SLAVE STATUS")) {
        SqlAnswer onRelay = SqlAnswer.of(agent, sql);
        assertThat(onRelay.failed()).as(onRelay.toString()).isFalse();
        SqlAnswer onPrimary = SqlAnswer.of(p, sql);
        assertThat(onRelay.columns()).isEqualTo(onPrimary.columns());
      }
    }
  }

  private static void notSupported(Connection r) {
    for (String sql :
        List.of(
            "CREATE TABLE t1 (a INT)",
            "SHOW ENGINE INNODB STATUS",
            "FLUSH BINARY LOGS",
            "SHOW DATABASES",
            "SHOW GRANTS",
            "SELECT a FROM d.t GROUP BY a",
            "LOCK TABLES d.t READ")) {
      SqlAnswer a = SqlAnswer.of(r, sql);
      assertThat(a.errorCode()).as(a.toString()).isEqualTo(1235);
      assertThat(a.message()).contains("doesn't yet support").contains("binlog-relay");
    }
  }
}
