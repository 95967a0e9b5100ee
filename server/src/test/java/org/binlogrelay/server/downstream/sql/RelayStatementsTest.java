package org.binlogrelay.server.downstream.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.server.downstream.account.Privilege;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.Test;

/**
 * The statements of issues 20 and 15 against both dialects, with fake sources: transactions and
 * their status flags, GTID functions, SHOW STATUS / VARIABLES filters, session variables connectors
 * set, SHOW REPLICA STATUS from the relay's replication, the process list and KILL, SHOW BINLOG
 * EVENTS, the relay's tables, and "not supported" for valid SQL it does not run.
 */
class RelayStatementsTest {
  private static final long NOW = 1_795_322_465_000L;
  private static final ManualTime CLOCK = new ManualTime(NOW);
  private static final String UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  private static final ServerIdentity MYSQL_ID =
      new ServerIdentity(
          "9.7.4-relay",
          "binlog-relay",
          77,
          "11111111-2222-3333-4444-555555555555",
          0,
          67108864,
          28800,
          "relay-host",
          3306);
  private static final ServerIdentity MARIADB_ID =
      new ServerIdentity(
          "10.11.19-MariaDB-relay", "binlog-relay", 77, "", 3, 67108864, 28800, "relay-host", 3306);
  private static final ClientContext REPL =
      new ClientContext(
          "repl",
          "%",
          "127.0.0.1",
          12,
          EnumSet.allOf(Privilege.class),
          "TLSv1.3",
          "TLS_AES_256_GCM_SHA384");
  private static final ClientContext OTHER =
      new ClientContext("other", "%", "127.0.0.1", 13, EnumSet.noneOf(Privilege.class));

  private final List<ProcessInfo> processes = new ArrayList<>();
  private final List<Long> killed = new ArrayList<>();
  private SourceStatus status = status(SourceStatus.IoState.STREAMING, true, "");
  private final SessionVariables session = new SessionVariables();

  private final BinlogListing binlogs =
      new BinlogListing() {
        @Override
        public List<BinlogFile> files() {
          return List.of(new BinlogFile("binlog.000001", 1156));
        }

        @Override
        public Optional<Position> current() {
          return Optional.of(new Position("binlog.000001", 1156));
        }

        @Override
        public String executedGtids() {
          return UUID + ":1-21";
        }

        @Override
        public String purgedGtids() {
          return UUID + ":1-2";
        }

        @Override
        public String binlogState() {
          return "0-1-5";
        }

        @Override
        public Optional<String> gtidPositionAt(String file, long offset) {
          return Optional.empty();
        }

        @Override
        public Optional<List<EventRow>> events(String file, long from, long offset, long count) {
          if (file != null && !file.equals("binlog.000001")) {
            return Optional.empty();
          }
          List<EventRow> all =
              List.of(
                  new EventRow("binlog.000001", 4, "Format_desc", 11, 127, "Server ver: 9.7.4"),
                  new EventRow("binlog.000001", 127, "Previous_gtids", 11, 158, ""),
                  new EventRow(
                      "binlog.000001",
                      158,
                      "Gtid",
                      11,
                      235,
                      "SET @@SESSION.GTID_NEXT= '" + UUID + ":1'"));
          return Optional.of(
              all.stream()
                  .filter(e -> e.position() >= from)
                  .skip(offset)
                  .limit(count < 0 ? 99 : count)
                  .toList());
        }
      };

  private final Connections connections =
      new Connections() {
        @Override
        public List<ProcessInfo> list() {
          return processes;
        }

        @Override
        public boolean kill(long id, boolean queryOnly) {
          killed.add(id);
          return true;
        }
      };

  private final ServerCounters counters =
      new ServerCounters() {
        @Override
        public long startedAtMillis() {
          return NOW - 3_600_000;
        }

        @Override
        public long connections() {
          return 9;
        }

        @Override
        public long maxUsedConnections() {
          return 3;
        }

        @Override
        public long bytesSent() {
          return 1000;
        }

        @Override
        public long bytesReceived() {
          return 200;
        }

        @Override
        public long abortedConnects() {
          return 1;
        }

        @Override
        public long tlsAccepts() {
          return 2;
        }

        @Override
        public long tlsFinishedAccepts() {
          return 2;
        }

        @Override
        public boolean tlsConfigured() {
          return true;
        }
      };

  private final ReplicationSource source = () -> Optional.ofNullable(status);
  private final QueryResponder mysql = responder(MysqlSqlFlavor.INSTANCE, MYSQL_ID);
  private final QueryResponder mariadb = responder(MariadbSqlFlavor.INSTANCE, MARIADB_ID);

  private QueryResponder responder(SqlFlavor dialect, ServerIdentity id) {
    return new QueryResponder(
        dialect,
        id,
        new ServerVariables(dialect.variables(id, binlogs, source)),
        binlogs,
        List::of,
        CLOCK,
        source,
        connections,
        counters);
  }

  private static SourceStatus status(
      SourceStatus.IoState io, boolean storeAccepting, String lastError) {
    return new SourceStatus(
        "primary.example",
        3306,
        "repl",
        io,
        storeAccepting,
        storeAccepting ? "" : "disk full",
        "binlog.000007",
        4711,
        "binlog.000007",
        4711,
        90_000,
        11,
        UUID,
        UUID + ":1-21",
        UUID + ":1-21",
        2.5,
        UpstreamErrno.of(lastError),
        lastError,
        lastError.isEmpty() ? 0 : NOW - 1000,
        1,
        0.5,
        42,
        NOW - 100,
        false,
        false,
        "",
        "",
        "",
        "",
        "",
        false,
        false,
        UUID + ":21",
        0,
        0,
        21,
        300,
        Map.of(
            "binlog_row_image",
            "MINIMAL",
            "binlog_rows_query_log_events",
            "ON",
            "max_binlog_size",
            "4194304"));
  }

  /** The test's stand-in for the upstream's error numbers. */
  private static final class UpstreamErrno {
    static int of(String text) {
      return text.isEmpty() ? 0 : 1236;
    }
  }

  private QueryResponse respond(QueryResponder r, String sql, ClientContext who) {
    return r.respond(sql, who, session);
  }

  private TextResultSet rows(QueryResponder r, String sql) {
    return rows(r, sql, REPL);
  }

  private TextResultSet rows(QueryResponder r, String sql, ClientContext who) {
    QueryResponse answer = respond(r, sql, who);
    assertThat(answer).as(sql).isInstanceOf(QueryResponse.Rows.class);
    return ((QueryResponse.Rows) answer).resultSet();
  }

  private List<String> row(QueryResponder r, String sql) {
    TextResultSet rs = rows(r, sql);
    assertThat(rs.rows()).as(sql).hasSize(1);
    return rs.rows().get(0);
  }

  private ErrPacket err(QueryResponder r, String sql) {
    return err(r, sql, REPL);
  }

  private ErrPacket err(QueryResponder r, String sql, ClientContext who) {
    QueryResponse answer = respond(r, sql, who);
    assertThat(answer).as(sql).isInstanceOf(QueryResponse.Err.class);
    return ((QueryResponse.Err) answer).err();
  }

  private OkPacket ok(QueryResponder r, String sql) {
    QueryResponse answer = respond(r, sql, REPL);
    assertThat(answer).as(sql).isInstanceOf(QueryResponse.Ok.class);
    return ((QueryResponse.Ok) answer).ok();
  }

  private static Map<String, String> nameValues(TextResultSet rs) {
    Map<String, String> m = new LinkedHashMap<>();
    rs.rows().forEach(r -> m.put(r.get(0), r.get(1)));
    return m;
  }

  @Test
  void transactionsKeepTheStatusFlagsAsMysqlDoes() {
    int autocommit = OkPacket.SERVER_STATUS_AUTOCOMMIT;
    int inTrans = OkPacket.SERVER_STATUS_IN_TRANS;
    assertThat(ok(mysql, "SET autocommit=1").statusFlags()).isEqualTo(autocommit);
    assertThat(ok(mysql, "BEGIN").statusFlags()).isEqualTo(autocommit | inTrans);
    assertThat(ok(mysql, "COMMIT").statusFlags()).isEqualTo(autocommit);
    assertThat(ok(mysql, "SET autocommit=0").statusFlags()).isZero();
    assertThat(row(mysql, "SELECT @@autocommit")).containsExactly("0");
    assertThat(ok(mysql, "START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT").statusFlags())
        .isEqualTo(inTrans | OkPacket.SERVER_STATUS_IN_TRANS_READONLY);
    assertThat(err(mysql, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"))
        .isEqualTo(
            new ErrPacket(
                1568,
                "25001",
                "Transaction characteristics can't be changed while a transaction is in progress"));
    assertThat(ok(mysql, "ROLLBACK").statusFlags()).isZero();
    assertThat(ok(mysql, "COMMIT AND CHAIN").statusFlags()).isEqualTo(inTrans);
    assertThat(ok(mysql, "SET autocommit = 1").statusFlags())
        .as("SET autocommit=1 commits")
        .isEqualTo(autocommit);
    assertThat(ok(mysql, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED").statusFlags())
        .isEqualTo(autocommit);
    assertThat(row(mysql, "SELECT @@transaction_isolation"))
        .as("only the next transaction")
        .containsExactly("REPEATABLE-READ");
    ok(mysql, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY");
    assertThat(row(mysql, "SELECT @@session.transaction_isolation, @@transaction_read_only"))
        .containsExactly("SERIALIZABLE", "1");
    assertThat(err(mysql, "SET GLOBAL TRANSACTION READ ONLY").code()).isEqualTo(1227);
    ok(mariadb, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    assertThat(row(mariadb, "SELECT @@tx_isolation")).containsExactly("READ-COMMITTED");
    assertThat(err(mariadb, "SELECT @@transaction_isolation").code())
        .as("MariaDB 10.11 has only tx_isolation")
        .isEqualTo(1193);
    ok(mysql, "COMMIT RELEASE");
    assertThat(session.closeRequested()).isTrue();
  }

  @Test
  void gtidFunctionsOnLiteralsAndVariables() {
    TextResultSet rs =
        rows(
            mysql,
            "SELECT GTID_SUBTRACT('"
                + UUID.toUpperCase(Locale.ROOT)
                + ":1-21','"
                + UUID
                + ":1-17')");
    assertThat(rs.rows().get(0)).containsExactly(UUID + ":18-21");
    assertThat(rs.columns().get(0).name())
        .isEqualTo(
            "GTID_SUBTRACT('" + UUID.toUpperCase(Locale.ROOT) + ":1-21','" + UUID + ":1-17')");
    assertThat(
            row(
                mysql,
                "SELECT GTID_SUBSET('"
                    + UUID
                    + ":1-2', @@global.gtid_executed), GTID_SUBSET("
                    + "@@global.gtid_executed, ''), GTID_SUBTRACT(@@global.gtid_executed, @@global.gtid_purged), GTID_SUBTRACT(NULL,"
                    + " '')"))
        .containsExactly("1", "0", UUID + ":3-21", null);
    assertThat(err(mysql, "SELECT GTID_SUBTRACT('bad', '')").code()).isEqualTo(1772);
    assertThat(err(mysql, "SELECT GTID_SUBSET('a')"))
        .isEqualTo(
            new ErrPacket(
                1582,
                "42000",
                "Incorrect parameter count in the call to native function 'GTID_SUBSET'"));
    assertThat(err(mariadb, "SELECT GTID_SUBTRACT('0-1-5', '0-1-3')"))
        .as("MariaDB has no GTID set functions")
        .isEqualTo(new ErrPacket(1305, "42000", "FUNCTION gtid_subtract does not exist"));
    assertThat(row(mysql, "SELECT @@global.gtid_purged")).containsExactly(UUID + ":1-2");
  }

  @Test
  void showVariablesAndStatusWithLikeAndWhere() {
    assertThat(
            nameValues(
                rows(
                    mysql,
                    "SHOW VARIABLES WHERE Variable_name IN ('character_set_server',"
                        + " 'COLLATION_SERVER')")))
        .containsExactly(
            Map.entry("character_set_server", "utf8mb4"),
            Map.entry("collation_server", "utf8mb4_0900_ai_ci"));
    assertThat(nameValues(rows(mysql, "SHOW VARIABLES WHERE Variable_name = 'sql_mode'")))
        .containsKey("sql_mode");
    assertThat(nameValues(rows(mysql, "SHOW GLOBAL VARIABLES LIKE 'GTID_MODE'")))
        .containsExactly(Map.entry("gtid_mode", "ON"));
    Map<String, String> binlog = nameValues(rows(mysql, "SHOW VARIABLES LIKE 'binlog%'"));
    assertThat(binlog)
        .hasSize(23)
        .containsEntry("binlog_row_image", "MINIMAL")
        .containsEntry("binlog_rows_query_log_events", "ON")
        .containsEntry("binlog_format", "ROW")
        .containsEntry("binlog_encryption", "OFF");
    assertThat(nameValues(rows(mariadb, "SHOW VARIABLES LIKE 'binlog%'")))
        .hasSize(14)
        .containsEntry("binlog_row_image", "MINIMAL");
    assertThat(row(mysql, "SELECT @@max_binlog_size, @@binlog_rows_query_log_events"))
        .containsExactly("4194304", "1");
    Map<String, String> on =
        nameValues(
            rows(mysql, "SHOW VARIABLES WHERE Variable_name LIKE 'binlog%' AND Value" + " = 'ON'"));
    assertThat(on)
        .containsKeys("binlog_rows_query_log_events", "binlog_order_commits")
        .doesNotContainKey("binlog_encryption");
    Map<String, String> global = nameValues(rows(mysql, "SHOW GLOBAL STATUS"));
    assertThat(global)
        .containsEntry("Uptime", "3600")
        .containsEntry("Connections", "9")
        .containsEntry("Bytes_sent", "1000")
        .containsEntry("Max_used_connections", "3")
        .containsEntry("Ssl_accepts", "2")
        .containsEntry("Rpl_semi_sync_source_status", "OFF")
        .containsKeys(
            "Com_select",
            "Com_show_replica_status",
            "Threads_running",
            "Questions",
            "Binlog_cache_use");
    assertThat(nameValues(rows(mysql, "SHOW SESSION STATUS LIKE 'Ssl_%'")))
        .containsEntry("Ssl_version", "TLSv1.3")
        .containsEntry("Ssl_cipher", "TLS_AES_256_GCM_SHA384");
    assertThat(nameValues(rows(mysql, "SHOW GLOBAL STATUS LIKE 'Ssl_version'")))
        .containsEntry("Ssl_version", "");
    assertThat(nameValues(rows(mysql, "SHOW STATUS WHERE Variable_name = 'Uptime' AND Value > 0")))
        .hasSize(1);
    long before =
        Long.parseLong(
            nameValues(rows(mysql, "SHOW SESSION STATUS LIKE 'Com_select'")).get("Com_select"));
    rows(mysql, "SELECT 1");
    long after =
        Long.parseLong(
            nameValues(rows(mysql, "SHOW SESSION STATUS LIKE 'Com_select'")).get("Com_select"));
    assertThat(after - before).isEqualTo(1);
    Map<String, String> maria = nameValues(rows(mariadb, "SHOW GLOBAL STATUS"));
    assertThat(maria)
        .containsKeys("Com_show_slave_status", "Rpl_semi_sync_slave_status", "Slaves_connected")
        .containsEntry("Slave_running", "ON");
  }

  @Test
  void sessionVariablesConnectorsSet() {
    for (String sql :
        List.of(
            "SET SESSION lock_wait_timeout=10",
            "SET SESSION innodb_lock_wait_timeout=10",
            "SET net_write_timeout=600, net_read_timeout=600",
            "SET SQL_SELECT_LIMIT=DEFAULT",
            "SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')",
            "SET session_track_schema = 1",
            "SET wait_timeout = 3600, interactive_timeout = 3600",
            "SET time_zone = '+00:00'",
            "SET transaction_isolation = 'read-committed'",
            "SET character_set_results = NULL")) {
      ok(mysql, sql);
    }
    assertThat(
            row(
                mysql,
                "SELECT @@session.lock_wait_timeout, @@innodb_lock_wait_timeout,"
                    + " @@global.innodb_lock_wait_timeout, @@net_write_timeout, @@sql_select_limit, @@time_zone,"
                    + " @@transaction_isolation"))
        .containsExactly(
            "10", "10", "50", "600", "18446744073709551615", "+00:00", "READ-COMMITTED");
    assertThat(row(mysql, "SELECT @@sql_mode"))
        .as("in MySQL's own order")
        .containsExactly(
            "ANSI_QUOTES,"
                + "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
                + "NO_ENGINE_SUBSTITUTION");
    assertThat(err(mysql, "SET sql_mode = 'NO_SUCH_MODE'").code()).isEqualTo(1231);
    session.reset();
    ok(mariadb, "SET sql_mode = CONCAT(@@sql_mode, ',STRICT_TRANS_TABLES')");
    assertThat(row(mariadb, "SELECT @@sql_mode"))
        .as("once, MariaDB Connector/J's connect")
        .containsExactly(
            "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION");
    assertThat(err(mysql, "SET transaction_isolation = 'sometimes'").code()).isEqualTo(1231);
    ok(mariadb, "SET SESSION lock_wait_timeout = 10");
    assertThat(row(mariadb, "SELECT @@lock_wait_timeout, @@global.lock_wait_timeout"))
        .containsExactly("10", "86400");
  }

  @Test
  void replicaStatusFromTheRelaysReplication() {
    TextResultSet my = rows(mysql, "SHOW REPLICA STATUS");
    assertThat(my.columns()).hasSize(60);
    Map<String, String> r = columnsToValues(my);
    assertThat(r)
        .containsEntry("Source_Host", "primary.example")
        .containsEntry("Source_Port", "3306")
        .containsEntry("Source_User", "repl")
        .containsEntry("Replica_IO_Running", "Yes")
        .containsEntry("Replica_SQL_Running", "Yes")
        .containsEntry("Source_Log_File", "binlog.000007")
        .containsEntry("Read_Source_Log_Pos", "4711")
        .containsEntry("Retrieved_Gtid_Set", UUID + ":1-21")
        .containsEntry("Seconds_Behind_Source", "2")
        .containsEntry("Source_UUID", UUID)
        .containsEntry("Replica_IO_State", "Waiting for source to send event");
    assertThat(err(mysql, "SHOW SLAVE STATUS").code()).as("MySQL 8.4 dropped it").isEqualTo(1064);
    ServerIdentity mysql80 =
        new ServerIdentity(
            "8.0.36-binlog-relay",
            "binlog-relay",
            77,
            "11111111-2222-3333-4444-555555555555",
            0,
            67108864,
            28800,
            "relay-host",
            3306);
    QueryResponder old = responder(MysqlSqlFlavor.INSTANCE, mysql80);
    Map<String, String> slave = columnsToValues(rows(old, "SHOW SLAVE STATUS"));
    assertThat(slave)
        .containsEntry("Master_Host", "primary.example")
        .containsEntry("Slave_IO_Running", "Yes")
        .containsEntry("Seconds_Behind_Master", "2")
        .containsKeys(
            "Master_UUID",
            "Get_master_public_key",
            "Master_public_key_path",
            "Master_Retry_Count",
            "Relay_Master_Log_File",
            "Exec_Master_Log_Pos",
            "Replicate_Do_DB",
            "Slave_SQL_Running_State");
    assertThat(columnsToValues(rows(old, "SHOW REPLICA STATUS"))).containsKey("Source_Host");
    assertThat(rows(old, "SHOW MASTER STATUS").rows()).hasSize(1);
    assertThat(err(mysql, "SHOW REPLICA STATUS FOR CHANNEL 'x'").code()).isEqualTo(3074);
    assertThat(err(mysql, "SHOW REPLICA STATUS", OTHER).message())
        .contains("SUPER, REPLICATION CLIENT");
    Map<String, String> m = columnsToValues(rows(mariadb, "SHOW SLAVE STATUS"));
    assertThat(m)
        .containsEntry("Master_Host", "primary.example")
        .containsEntry("Slave_IO_Running", "Yes")
        .containsEntry("Gtid_IO_Pos", UUID + ":1-21")
        .containsEntry("Seconds_Behind_Master", "2");
    assertThat(rows(mariadb, "SHOW SLAVE STATUS").columns()).hasSize(54);
    assertThat(rows(mariadb, "SHOW REPLICA STATUS").columns()).hasSize(54);
    assertThat(rows(mariadb, "SHOW ALL SLAVES STATUS").columns()).hasSize(62);
    assertThat(err(mariadb, "SHOW SLAVE 'x' STATUS").code()).isEqualTo(1617);

    status =
        status(
            SourceStatus.IoState.RECONNECTING,
            false,
            "primary p:3306 refused: error 1236 (HY000): purged");
    Map<String, String> failing = columnsToValues(rows(mysql, "SHOW REPLICA STATUS"));
    assertThat(failing)
        .containsEntry("Replica_IO_Running", "Connecting")
        .containsEntry("Replica_SQL_Running", "No")
        .containsEntry("Last_IO_Errno", "1236")
        .containsEntry("Last_SQL_Errno", "1026")
        .containsEntry("Last_IO_Error_Timestamp", "261122 04:41:04");
    status = null;
    assertThat(rows(mysql, "SHOW REPLICA STATUS").rows()).as("no primary: no row").isEmpty();
  }

  private static Map<String, String> columnsToValues(TextResultSet rs) {
    assertThat(rs.rows()).hasSize(1);
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < rs.columns().size(); i++) {
      m.put(rs.columns().get(i).name(), rs.rows().get(0).get(i));
    }
    return m;
  }

  @Test
  void processListKillAndTheRelaysTables() {
    processes.add(
        new ProcessInfo(
            12,
            "repl",
            "127.0.0.1:5000",
            null,
            ProcessInfo.Activity.QUERY,
            0,
            "SHOW PROCESSLIST",
            0,
            false));
    processes.add(
        new ProcessInfo(
            15,
            "repl",
            "127.0.0.1:5001",
            null,
            ProcessInfo.Activity.DUMP_WAITING,
            120,
            null,
            120_000,
            true));
    processes.add(
        new ProcessInfo(
            16, "other", "127.0.0.1:5002", "db", ProcessInfo.Activity.SLEEP, 3, null, 3000, false));
    TextResultSet list = rows(mysql, "SHOW PROCESSLIST");
    assertThat(list.columns())
        .extracting(ColumnDefinition::name)
        .containsExactly("Id", "User", "Host", "db", "Command", "Time", "State", "Info");
    assertThat(list.rows().get(1))
        .containsExactly(
            "15",
            "repl",
            "127.0.0.1:5001",
            null,
            "Binlog Dump GTID",
            "120",
            "Source has sent all binlog to replica; waiting for more updates",
            null);
    assertThat(rows(mariadb, "SHOW FULL PROCESSLIST").rows().get(1))
        .contains("Binlog Dump", "Master has sent all binlog to slave; waiting for more updates");
    assertThat(rows(mysql, "SHOW PROCESSLIST", OTHER).rows())
        .as("without REPLICATION CLIENT: own user only")
        .hasSize(1);
    assertThat(
            rows(
                    mysql,
                    "SELECT id, command FROM information_schema.PROCESSLIST WHERE command LIKE 'binlog%'")
                .rows())
        .containsExactly(List.of("15", "Binlog Dump GTID"));
    assertThat(
            row(mysql, "SELECT COUNT(*) FROM information_schema.processlist WHERE user = 'REPL'"))
        .containsExactly("2");
    assertThat(
            rows(mysql, "SELECT ID FROM information_schema.PROCESSLIST ORDER BY ID DESC LIMIT 1")
                .rows())
        .containsExactly(List.of("16"));
    assertThat(err(mysql, "SELECT nope FROM information_schema.PROCESSLIST"))
        .isEqualTo(new ErrPacket(1054, "42S22", "Unknown column 'nope' in 'field list'"));
    assertThat(rows(mariadb, "SELECT * FROM information_schema.PROCESSLIST").columns()).hasSize(18);

    ok(mysql, "KILL 15");
    ok(mysql, "KILL QUERY 15");
    assertThat(killed).containsExactly(15L, 15L);
    assertThat(err(mysql, "KILL 999"))
        .isEqualTo(new ErrPacket(1094, "HY000", "Unknown thread id: 999"));
    assertThat(err(mysql, "KILL CONNECTION 16"))
        .isEqualTo(new ErrPacket(1095, "HY000", "You are not owner of thread 16"));

    Map<String, String> status =
        columnsToValues(
            rows(mysql, "SELECT * FROM performance_schema.replication_connection_status"));
    assertThat(status)
        .containsEntry("SERVICE_STATE", "ON")
        .containsEntry("SOURCE_UUID", UUID)
        .containsEntry("RECEIVED_TRANSACTION_SET", UUID + ":1-21")
        .containsEntry("COUNT_RECEIVED_HEARTBEATS", "42");
    Map<String, String> configuration =
        columnsToValues(
            rows(mysql, "SELECT * FROM performance_schema.replication_connection_configuration"));
    assertThat(configuration)
        .containsEntry("HOST", "primary.example")
        .containsEntry("PORT", "3306")
        .containsEntry("HEARTBEAT_INTERVAL", "0.500");
    assertThat(err(mariadb, "SELECT * FROM performance_schema.replication_connection_status"))
        .isEqualTo(
            new ErrPacket(
                1235,
                "42000",
                "This version of binlog-relay doesn't yet support"
                    + " 'SELECT from performance_schema.replication_connection_status'"));
  }

  @Test
  void binlogEvents() {
    TextResultSet all = rows(mysql, "SHOW BINLOG EVENTS");
    assertThat(all.columns())
        .extracting(ColumnDefinition::name)
        .containsExactly("Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info");
    assertThat(all.rows()).hasSize(3);
    assertThat(rows(mysql, "SHOW BINLOG EVENTS IN 'binlog.000001' FROM 5 LIMIT 1").rows())
        .containsExactly(List.of("binlog.000001", "127", "Previous_gtids", "11", "158", ""));
    assertThat(err(mysql, "SHOW BINLOG EVENTS IN 'nosuch'"))
        .isEqualTo(
            new ErrPacket(
                1220,
                "HY000",
                "Error when executing command SHOW BINLOG EVENTS: Could not find target log"));
    assertThat(err(mysql, "SHOW BINLOG EVENTS", OTHER).message()).contains("REPLICATION SLAVE");
  }

  @Test
  void validStatementsTheRelayDoesNotRunAreNotSupported() {
    assertThat(err(mysql, "FLUSH BINARY LOGS"))
        .isEqualTo(
            new ErrPacket(
                1235, "42000", "This version of binlog-relay doesn't yet support 'FLUSH BINARY'"));
    // table schemas: without a schema source, 1235 naming the option (SchemaStatements.off)
    for (String sql :
        List.of(
            "SHOW DATABASES",
            "SHOW FULL TABLES FROM db",
            "SHOW CREATE TABLE db.t",
            "SELECT * FROM information_schema.TABLES")) {
      ErrPacket e = err(mysql, sql);
      assertThat(e.code()).as(sql).isEqualTo(1235);
      assertThat(e.message()).as(sql).contains("--schema-source");
    }
    assertThat(err(mysql, "SELECT * FROM t"))
        .as("as MySQL: no database")
        .isEqualTo(new ErrPacket(1046, "3D000", "No database selected"));
    assertThat(err(mysql, "SELECT * FROM mydb.orders").message())
        .contains("'SELECT from mydb.orders'");
    assertThat(err(mysql, "SELECT a FROM t GROUP BY a").message()).contains("'GROUP BY'");
    assertThat(err(mysql, "SELECT foo"))
        .isEqualTo(new ErrPacket(1054, "42S22", "Unknown column 'foo' in 'field list'"));
    ok(mysql, "USE db");
    assertThat(row(mysql, "SELECT DATABASE()")).containsExactly("db");
  }

  @Test
  void expressionsEvaluateAsOnMysql() {
    assertThat(
            row(
                mysql,
                "SELECT 'x' = 'X', 1 IN (1, 2), NULL IS NULL, NOT 1, 1 AND 0, 'a' LIKE 'A%', 2/3,"
                    + " 7 DIV 2, -@@server_id, 1 + 2 * 3, NULL = NULL, NULL <=> NULL, CONCAT('a', @@server_id)"))
        .containsExactly("1", "1", "1", "0", "0", "1", "0.6667", "3", "-77", "7", null, "1", "a77");
    assertThat(rows(mysql, "SELECT 1 FROM DUAL WHERE 1 = 0").rows()).isEmpty();
  }

  @Test
  void anyCombinationOfTheGrammarIsAnAnswerNeverAnException() {
    List<String> pieces =
        List.of(
            "SELECT",
            "SHOW",
            "SET",
            "KILL",
            "BEGIN",
            "COMMIT",
            "(",
            ")",
            ",",
            "*",
            "-",
            "+",
            "/",
            "DIV",
            "MOD",
            "=",
            "<=>",
            "<>",
            "IN",
            "LIKE",
            "NOT",
            "AND",
            "OR",
            "IS",
            "NULL",
            "1",
            "0x1F",
            "1.5e3",
            "1e999999999",
            "'a'",
            "@x",
            "@@server_id",
            "@@global.gtid_executed",
            "GTID_SUBTRACT(",
            "GTID_SUBSET(",
            "COUNT(*)",
            "FROM",
            "information_schema.PROCESSLIST",
            "performance_schema.replication_connection_status",
            "WHERE",
            "ORDER",
            "BY",
            "LIMIT",
            "STATUS",
            "VARIABLES",
            "REPLICA",
            "SLAVE",
            "PROCESSLIST",
            "BINLOG",
            "EVENTS",
            "TRANSACTION",
            "ISOLATION",
            "LEVEL",
            "READ",
            "ONLY",
            "CONCAT(",
            "IFNULL(",
            "NOW()",
            "CASE",
            "id");
    Random random = new Random(20);
    processes.add(
        new ProcessInfo(
            12, "repl", "127.0.0.1:5000", null, ProcessInfo.Activity.QUERY, 0, "x", 0, false));
    for (int i = 0; i < 20_000; i++) {
      StringBuilder sql = new StringBuilder();
      int n = 1 + random.nextInt(9);
      for (int j = 0; j < n; j++) {
        sql.append(pieces.get(random.nextInt(pieces.size()))).append(' ');
      }
      for (QueryResponder r : List.of(mysql, mariadb)) {
        QueryResponse answer = r.respond(sql.toString(), REPL, session);
        assertThat(answer).as(sql.toString()).isNotNull();
      }
    }
    assertThat(err(mysql, "SELECT 1e999999999").code()).isEqualTo(1367);
    assertThat(err(mysql, "SELECT " + "9".repeat(200)).code()).isEqualTo(1367);
  }
}
