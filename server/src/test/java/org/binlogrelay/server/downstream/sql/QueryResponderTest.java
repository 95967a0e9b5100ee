package org.binlogrelay.server.downstream.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.server.downstream.account.Privilege;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.Test;

class QueryResponderTest {
  private static final ManualTime CLOCK = new ManualTime(1_795_322_465_000L);
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
  private static final BinlogListing BINLOGS =
      new BinlogListing() {
        @Override
        public List<BinlogFile> files() {
          return List.of(
              new BinlogFile("binlog.000001", 1145), new BinlogFile("binlog.000002", 197));
        }

        @Override
        public Optional<Position> current() {
          return Optional.of(new Position("binlog.000002", 197));
        }

        @Override
        public String executedGtids() {
          return "f085fb44-e62e-11f1-adf1-02fc00000001:1-4";
        }

        @Override
        public String purgedGtids() {
          return "f085fb44-e62e-11f1-adf1-02fc00000001:1-2";
        }

        @Override
        public String binlogState() {
          return "0-2-90,0-1-100";
        }

        @Override
        public Optional<String> gtidPositionAt(String file, long offset) {
          return file.equals("binlog.000001") && offset == 4
              ? Optional.of("0-1-100")
              : Optional.empty();
        }
      };
  private static final ClientContext REPL =
      new ClientContext("repl", "%", "127.0.0.1", 12, EnumSet.allOf(Privilege.class));
  private static final ClientContext NONE =
      new ClientContext("plain", "%", "127.0.0.1", 13, EnumSet.noneOf(Privilege.class));

  private final List<ReplicaInfo> replicas = new ArrayList<>();
  private final QueryResponder mysql = responder(MysqlSqlFlavor.INSTANCE, MYSQL_ID);
  private final QueryResponder mariadb = responder(MariadbSqlFlavor.INSTANCE, MARIADB_ID);
  private final SessionVariables session = new SessionVariables();

  private QueryResponder responder(SqlFlavor dialect, ServerIdentity id) {
    return new QueryResponder(
        dialect,
        id,
        new ServerVariables(dialect.variables(id, BINLOGS)),
        BINLOGS,
        () -> replicas,
        CLOCK);
  }

  private TextResultSet rows(QueryResponder r, String sql) {
    return rows(r, sql, REPL);
  }

  private TextResultSet rows(QueryResponder r, String sql, ClientContext who) {
    QueryResponse answer = r.respond(sql, who, session);
    assertThat(answer).as(sql).isInstanceOf(QueryResponse.Rows.class);
    return ((QueryResponse.Rows) answer).resultSet();
  }

  private List<String> row(QueryResponder r, String sql) {
    TextResultSet rs = rows(r, sql);
    assertThat(rs.rows()).hasSize(1);
    return rs.rows().get(0);
  }

  private ErrPacket err(QueryResponder r, String sql) {
    return err(r, sql, REPL);
  }

  private ErrPacket err(QueryResponder r, String sql, ClientContext who) {
    QueryResponse answer = r.respond(sql, who, session);
    assertThat(answer).as(sql).isInstanceOf(QueryResponse.Err.class);
    return ((QueryResponse.Err) answer).err();
  }

  private void ok(QueryResponder r, String sql) {
    assertThat(r.respond(sql, REPL, session)).as(sql).isInstanceOf(QueryResponse.Ok.class);
  }

  @Test
  void whatAMysql97ReplicaAsksBeforeDumping() {
    TextResultSet now = rows(mysql, " SELECT UNIX_TIMESTAMP()");
    assertThat(now.rows()).containsExactly(List.of("1795322465"));
    assertThat(now.columns().get(0))
        .isEqualTo(
            ColumnDefinition.computed("UNIX_TIMESTAMP()", 63, 21, ColumnType.LONGLONG, 0x81, 0));
    TextResultSet id = rows(mysql, " SELECT @@GLOBAL.SERVER_ID");
    assertThat(id.rows()).containsExactly(List.of("77"));
    assertThat(id.columns().get(0))
        .isEqualTo(
            ColumnDefinition.computed("@@GLOBAL.SERVER_ID", 63, 21, ColumnType.LONGLONG, 0xa0, 0));
    ok(
        mysql,
        " SET @master_heartbeat_period = 30000001024, @source_heartbeat_period = 30000001024");
    ok(
        mysql,
        " SET @master_binlog_checksum = @@global.binlog_checksum, @source_binlog_checksum = @@global.binlog_checksum");
    TextResultSet checksum = rows(mysql, " SELECT @source_binlog_checksum");
    assertThat(checksum.rows()).containsExactly(List.of("CRC32"));
    assertThat(checksum.columns().get(0).type()).isEqualTo(ColumnType.LONG_BLOB);
    assertThat(row(mysql, " SELECT @@GLOBAL.GTID_MODE")).containsExactly("ON");
    assertThat(row(mysql, " SELECT @@GLOBAL.SERVER_UUID"))
        .containsExactly("11111111-2222-3333-4444-555555555555");
    ok(
        mysql,
        " SET @slave_uuid = 'f51594d1-e62e-11f1-956d-02fc00000001', @replica_uuid = 'f51594d1-e62e-11f1-956d-02fc00000001'");
    assertThat(session.userText("replica_uuid")).contains("f51594d1-e62e-11f1-956d-02fc00000001");
    assertThat(session.userText("MASTER_HEARTBEAT_PERIOD")).contains("30000001024");
  }

  @Test
  void whatAMariadb1011ReplicaAsksBeforeDumping() {
    assertThat(rows(mariadb, "SHOW VARIABLES LIKE 'SERVER_ID'").rows())
        .containsExactly(List.of("server_id", "77"));
    ok(mariadb, "SET @master_heartbeat_period= 30000001024");
    ok(mariadb, "SET @master_binlog_checksum= @@global.binlog_checksum");
    assertThat(row(mariadb, "SELECT @master_binlog_checksum")).containsExactly("CRC32");
    ok(mariadb, "SET @mariadb_slave_capability=4");
    assertThat(row(mariadb, "SELECT @@GLOBAL.gtid_domain_id")).containsExactly("3");
    ok(mariadb, "SET @slave_connect_state=''");
    ok(mariadb, "SET @slave_gtid_strict_mode=1");
    ok(mariadb, "SET @slave_gtid_ignore_duplicates=0");
    assertThat(row(mariadb, "SELECT binlog_gtid_pos('binlog.000001',4)"))
        .containsExactly("0-1-100");
    assertThat(rows(mariadb, "SELECT binlog_gtid_pos('binlog.000009',4)").rows().get(0))
        .containsExactly((String) null);
    assertThat(mariadb.dialect().connectState(session))
        .hasValueSatisfying(s -> assertThat(s.isEmpty()).isTrue());
  }

  @Test
  void whatBinlogClientsAndConnectorsAsk() {
    assertThat(rows(mysql, "show global variables like 'binlog_checksum'").rows())
        .containsExactly(List.of("binlog_checksum", "CRC32"));
    assertThat(row(mysql, "select @@server_id")).containsExactly("77");
    assertThat(row(mysql, "SELECT VERSION()")).containsExactly("9.7.4-relay");
    ok(mysql, "SET @master_binlog_checksum = 'NONE', @source_binlog_checksum = 'NONE'");
    assertThat(row(mysql, "select @@version_comment limit 1")).containsExactly("binlog-relay");
    TextResultSet connectorJ =
        rows(
            mysql,
            "/* mysql-connector-j-9.7.0 (Revision: x) */SELECT  @@session.auto_increment_increment"
                + " AS auto_increment_increment, @@character_set_client AS character_set_client, @@character_set_connection AS"
                + " character_set_connection, @@character_set_results AS character_set_results, @@character_set_server AS"
                + " character_set_server, @@collation_server AS collation_server, @@collation_connection AS collation_connection,"
                + " @@init_connect AS init_connect, @@interactive_timeout AS interactive_timeout, @@license AS license,"
                + " @@lower_case_table_names AS lower_case_table_names, @@max_allowed_packet AS max_allowed_packet,"
                + " @@net_write_timeout AS net_write_timeout, @@performance_schema AS performance_schema, @@sql_mode AS sql_mode,"
                + " @@system_time_zone AS system_time_zone, @@time_zone AS time_zone, @@transaction_isolation AS"
                + " transaction_isolation, @@wait_timeout AS wait_timeout");
    assertThat(connectorJ.columns()).hasSize(19);
    assertThat(connectorJ.rows().get(0))
        .containsExactly(
            "1",
            "utf8mb4",
            "utf8mb4",
            "utf8mb4",
            "utf8mb4",
            "utf8mb4_0900_ai_ci",
            "utf8mb4_0900_ai_ci",
            "",
            "28800",
            "GPL",
            "0",
            "67108864",
            "60",
            "0",
            "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
                + "NO_ENGINE_SUBSTITUTION",
            "UTC",
            "SYSTEM",
            "REPEATABLE-READ",
            "28800");
    ok(mysql, "SET character_set_results = NULL");
    assertThat(rows(mysql, "SELECT @@character_set_results").rows().get(0))
        .containsExactly((String) null);
    ok(mysql, "SET autocommit=1");
    assertThat(row(mysql, "SELECT @@autocommit")).containsExactly("1");
  }

  @Test
  void replicationShowStatements() {
    assertThat(rows(mysql, "SHOW BINARY LOGS").rows())
        .containsExactly(
            List.of("binlog.000001", "1145", "No"), List.of("binlog.000002", "197", "No"));
    assertThat(rows(mysql, "SHOW BINARY LOG STATUS").rows())
        .containsExactly(
            List.of("binlog.000002", "197", "", "", "f085fb44-e62e-11f1-adf1-02fc00000001:1-4"));
    replicas.add(new ReplicaInfo(4, "", 3306, 0, "uuid"));
    assertThat(rows(mysql, "SHOW REPLICAS").rows())
        .containsExactly(List.of("4", "", "3306", "0", "uuid"));
    assertThat(rows(mariadb, "SHOW MASTER STATUS").rows())
        .containsExactly(List.of("binlog.000002", "197", "", ""));
    assertThat(rows(mariadb, "SHOW BINLOG STATUS").columns()).hasSize(4);
    assertThat(rows(mariadb, "SHOW MASTER LOGS").rows()).hasSize(2);
    assertThat(rows(mariadb, "SHOW SLAVE HOSTS").rows())
        .containsExactly(List.of("4", "", "3306", "0"));
    ClientContext slaveOnly =
        new ClientContext(
            "repl",
            "%",
            "127.0.0.1",
            14,
            EnumSet.of(Privilege.REPLICATION_SLAVE, Privilege.REPLICATION_CLIENT));
    assertThat(err(mariadb, "SHOW SLAVE HOSTS", slaveOnly).code())
        .as("MariaDB wants REPLICATION MASTER ADMIN")
        .isEqualTo(1227);
    assertThat(rows(mysql, "SHOW REPLICAS", slaveOnly).rows()).hasSize(1);
    assertThat(rows(mysql, "SHOW WARNINGS").rows()).isEmpty();
  }

  @Test
  void statementsMysql84DroppedAreSyntaxErrorsThereButNotOnMariadb() {
    assertThat(err(mysql, "SHOW MASTER STATUS"))
        .isEqualTo(
            new ErrPacket(
                1064,
                "42000",
                "You have an error in your SQL"
                    + " syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near"
                    + " 'MASTER STATUS' at line 1"));
    assertThat(err(mysql, "show slave hosts").message()).contains("near 'slave hosts' at line 1");
    assertThat(err(mysql, "SHOW MASTER LOGS").code()).isEqualTo(1064);
    assertThat(err(mariadb, "SHOW REPLICAS").message())
        .contains("MariaDB server version")
        .contains("near 'REPLICAS'");
    assertThat(err(mariadb, "SHOW BINARY LOG STATUS").message())
        .contains("near 'LOG STATUS' at line 1");
    assertThat(err(mysql, "SHOW BINLOG  STATUS").message()).contains("near 'STATUS' at line 1");
  }

  @Test
  void privilegesAsEachServerNamesThem() {
    assertThat(err(mysql, "SHOW BINARY LOGS", NONE))
        .isEqualTo(
            new ErrPacket(
                1227,
                "42000",
                "Access denied; you need (at least one of) the SUPER, REPLICATION CLIENT privilege(s) for this operation"));
    assertThat(err(mysql, "SHOW BINARY LOG STATUS", NONE).code()).isEqualTo(1227);
    assertThat(err(mysql, "SHOW REPLICAS", NONE).message())
        .contains("the REPLICATION SLAVE privilege(s)");
    assertThat(err(mariadb, "SHOW SLAVE HOSTS", NONE).message())
        .contains("the REPLICATION MASTER ADMIN privilege(s)");
    assertThat(err(mariadb, "SHOW BINARY LOGS", NONE).message())
        .contains("the BINLOG MONITOR privilege(s)");
    assertThat(err(mysql, "SET GLOBAL server_id = 5").message())
        .contains("SUPER or SYSTEM_VARIABLES_ADMIN");
    assertThat(err(mariadb, "SET @@global.gtid_domain_id = 5").message())
        .contains("the SUPER privilege(s)");
    assertThat(err(mariadb, "SET GLOBAL server_id = 5").message())
        .contains("SUPER, REPLICATION MASTER ADMIN");
    assertThat(err(mariadb, "SET server_id = 5").message()).contains("SUPER, BINLOG REPLAY");
    assertThat(row(mariadb, "SELECT @@session.server_id")).containsExactly("77");
  }

  @Test
  void variableErrorsWithMysqlsCodesAndWording() {
    assertThat(err(mysql, "SELECT @@nosuch"))
        .isEqualTo(new ErrPacket(1193, "HY000", "Unknown system variable 'nosuch'"));
    assertThat(err(mysql, "SELECT @@GLOBAL.gtid_domain_id").message())
        .isEqualTo("Unknown system variable 'gtid_domain_id'");
    assertThat(err(mariadb, "SELECT @@GLOBAL.GTID_MODE").message())
        .isEqualTo("Unknown system variable 'GTID_MODE'");
    assertThat(err(mysql, "select @@session.server_id"))
        .isEqualTo(new ErrPacket(1238, "HY000", "Variable 'server_id' is a GLOBAL variable"));
    assertThat(err(mysql, "set server_id=5"))
        .isEqualTo(
            new ErrPacket(
                1229,
                "HY000",
                "Variable 'server_id' is a GLOBAL variable and should be set with SET GLOBAL"));
    assertThat(err(mysql, "SET @@session.gtid_mode=ON").code()).isEqualTo(1229);
    assertThat(err(mysql, "SET autocommit = 'maybe'"))
        .isEqualTo(
            new ErrPacket(
                1231, "42000", "Variable 'autocommit' can't be set to the value of 'maybe'"));
    assertThat(err(mysql, "SET wait_timeout = 'abc'"))
        .isEqualTo(
            new ErrPacket(1232, "42000", "Incorrect argument type to variable 'wait_timeout'"));
    assertThat(err(mysql, "SET time_zone = NULL").code()).isEqualTo(1231);
    assertThat(err(mysql, "SET NAMES klingon"))
        .isEqualTo(new ErrPacket(1115, "42000", "Unknown character set: 'klingon'"));
  }

  @Test
  void setIsAllOrNothing() {
    assertThat(err(mysql, "SET @a = 1, server_id = 2").code()).isEqualTo(1229);
    assertThat(session.user("a")).isEqualTo(UserValue.NULL);
    ok(mysql, "SET @a = 1, SESSION net_write_timeout = 600");
    assertThat(row(mysql, "SELECT @a, @@net_write_timeout, @@global.net_write_timeout"))
        .containsExactly("1", "600", "60");
    ok(mysql, "SET net_write_timeout = DEFAULT");
    assertThat(row(mysql, "SELECT @@net_write_timeout")).containsExactly("60");
  }

  @Test
  void setNamesAndSessionValuesShowInShowVariables() {
    ok(mysql, "SET NAMES latin1");
    assertThat(row(mysql, "SELECT @@character_set_client, @@collation_connection"))
        .containsExactly("latin1", "latin1_general_ci");
    ok(mysql, "SET NAMES utf8mb4 COLLATE utf8mb4_bin");
    assertThat(rows(mysql, "SHOW VARIABLES WHERE Variable_name = 'collation_connection'").rows())
        .containsExactly(List.of("collation_connection", "utf8mb4_bin"));
    assertThat(
            rows(mysql, "SHOW GLOBAL VARIABLES WHERE Variable_name = 'collation_connection'")
                .rows())
        .containsExactly(List.of("collation_connection", "utf8mb4_0900_ai_ci"));
    assertThat(rows(mysql, "SHOW VARIABLES LIKE 'log_bin'").rows())
        .containsExactly(List.of("log_bin", "ON"));
    assertThat(row(mysql, "SELECT @@log_bin")).containsExactly("1");
    assertThat(rows(mysql, "SHOW VARIABLES").rows().size()).isGreaterThan(40);
  }

  @Test
  void literalsFunctionsAndLimit() {
    TextResultSet rs =
        rows(
            mysql,
            "SELECT 'a', 007, NULL, 1.50, DATABASE(), USER(), CURRENT_USER(), CONNECTION_ID()");
    assertThat(rs.rows().get(0))
        .isEqualTo(Arrays.asList("a", "7", null, "1.50", null, "repl@127.0.0.1", "repl@%", "12"));
    assertThat(rs.columns())
        .extracting(ColumnDefinition::type)
        .containsExactly(
            ColumnType.VAR_STRING,
            ColumnType.LONGLONG,
            ColumnType.NULL,
            ColumnType.NEWDECIMAL,
            ColumnType.VAR_STRING,
            ColumnType.VAR_STRING,
            ColumnType.VAR_STRING,
            ColumnType.LONGLONG);
    assertThat(rows(mysql, "SELECT 1 LIMIT 0").rows()).isEmpty();
    session.database("db1");
    assertThat(row(mysql, "SELECT SCHEMA()")).containsExactly("db1");
  }

  @Test
  void unknownStatementsAndFunctions() {
    assertThat(err(mysql, "selec 1").message()).endsWith("near 'selec 1' at line 1");
    assertThat(err(mariadb, "DRP TABLE t").message())
        .isEqualTo(
            "You have an error in your SQL syntax; check the manual"
                + " that corresponds to your MariaDB server version for the right syntax to use near 'DRP TABLE t' at line 1");
    assertThat(err(mariadb, "DROP TABLE t"))
        .as("valid SQL the relay does not run")
        .isEqualTo(
            new ErrPacket(
                1235, "42000", "This version of binlog-relay doesn't yet support 'DROP TABLE'"));
    assertThat(err(mysql, "   ")).isEqualTo(new ErrPacket(1065, "42000", "Query was empty"));
    assertThat(err(mysql, "SELECT foo()"))
        .isEqualTo(new ErrPacket(1046, "3D000", "No database selected"));
    session.database("mysql");
    assertThat(err(mysql, "SELECT foo()"))
        .isEqualTo(new ErrPacket(1305, "42000", "FUNCTION mysql.foo does not exist"));
    assertThat(err(mysql, "SELECT binlog_gtid_pos('a', 4)").code())
        .as("MySQL has no binlog_gtid_pos")
        .isEqualTo(1305);
    assertThat(err(mysql, "SELECT VERSION(1)"))
        .isEqualTo(
            new ErrPacket(
                1582,
                "42000",
                "Incorrect parameter count in the call to native function 'version'"));
  }

  @Test
  void gtidVariablesComeFromTheBinlogListing() {
    assertThat(row(mysql, "SELECT @@global.gtid_executed"))
        .containsExactly("f085fb44-e62e-11f1-adf1-02fc00000001:1-4");
    assertThat(row(mysql, "SELECT @@global.gtid_purged"))
        .containsExactly("f085fb44-e62e-11f1-adf1-02fc00000001:1-2");
    assertThat(rows(mysql, "SHOW GLOBAL VARIABLES LIKE 'gtid_purged'").rows())
        .containsExactly(List.of("gtid_purged", "f085fb44-e62e-11f1-adf1-02fc00000001:1-2"));
    assertThat(row(mariadb, "SELECT @@gtid_binlog_pos, @@gtid_current_pos, @@gtid_binlog_state"))
        .containsExactly(
            "f085fb44-e62e-11f1-adf1-02fc00000001:1-4",
            "f085fb44-e62e-11f1-adf1-02fc00000001:1-4",
            "0-2-90,0-1-100");
    assertThat(err(mariadb, "SELECT @@global.gtid_purged").code())
        .as("MariaDB has no gtid_purged")
        .isEqualTo(1193);
  }

  @Test
  void userVariableLimits() {
    for (int i = 0; i < SessionVariables.MAX_USER_VARIABLES; i++) {
      assertThat(session.setUser("v" + i, new UserValue("x", UserValue.Kind.STRING))).isTrue();
    }
    assertThat(err(mysql, "SET @one_too_many = 1").code()).isEqualTo(1231);
    ok(mysql, "SET @v1 = 'still fine'");
  }
}
