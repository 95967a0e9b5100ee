package org.binlogrelay.protocol.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SqlParserTest {
  private static final int MYSQL_97 = 90704;

  private static Statement parse(String sql) {
    return SqlParser.parse(sql, MYSQL_97, false);
  }

  private static Statement.Select select(String sql) {
    return (Statement.Select) parse(sql);
  }

  /** Every statement the captured transcripts contain (src/test/resources/transcripts). */
  @ParameterizedTest
  @ValueSource(
      strings = {
        " SELECT UNIX_TIMESTAMP()",
        " SELECT @@GLOBAL.SERVER_ID",
        " SET @master_heartbeat_period = 30000001024, @source_heartbeat_period = 30000001024",
        " SET @master_binlog_checksum = @@global.binlog_checksum, @source_binlog_checksum = @@global.binlog_checksum",
        " SELECT @source_binlog_checksum",
        " SELECT @@GLOBAL.GTID_MODE",
        " SELECT @@GLOBAL.SERVER_UUID",
        " SET @slave_uuid = 'f51594d1-e62e-11f1-956d-02fc00000001', @replica_uuid = 'f51594d1-e62e-11f1-956d-02fc00000001'",
        "SHOW VARIABLES LIKE 'SERVER_ID'",
        "SET @master_heartbeat_period= 30000001024",
        "SET @master_binlog_checksum= @@global.binlog_checksum",
        "SELECT @master_binlog_checksum",
        "SET @mariadb_slave_capability=4",
        "SELECT @@GLOBAL.gtid_domain_id",
        "SET @slave_connect_state=''",
        "SET @slave_gtid_strict_mode=1",
        "SET @slave_gtid_ignore_duplicates=0",
        "SELECT binlog_gtid_pos('binlog.000001',4)",
        "SELECT VERSION()",
        "SET @master_binlog_checksum='NONE'",
        "SET @master_binlog_checksum = 'NONE', @source_binlog_checksum = 'NONE'",
        "show master status",
        "show binary log status",
        "show global variables like 'binlog_checksum'",
        "set @master_binlog_checksum= @@global.binlog_checksum",
        "select @@server_id",
        "select @@version_comment limit 1",
        "SHOW BINARY LOGS",
        "SHOW BINARY LOG STATUS",
        "SHOW REPLICAS",
        "SHOW MASTER STATUS",
        "SHOW SLAVE HOSTS",
        "SET character_set_results = NULL",
        "SET autocommit=1",
        "SELECT @@version",
        "/* mysql-connector-j-9.7.0 (Revision: 0aade1f13bcc98faf7dda5c02e782481eb291f62) */SELECT  @@session.auto_increment_increment"
            + " AS auto_increment_increment, @@character_set_client AS character_set_client, @@character_set_connection AS"
            + " character_set_connection, @@init_connect AS init_connect, @@license AS license, @@sql_mode AS sql_mode,"
            + " @@transaction_isolation AS transaction_isolation, @@wait_timeout AS wait_timeout"
      })
  void parsesWhatRealClientsSend(String sql) {
    assertThat(parse(sql)).isNotNull();
  }

  @Test
  void selectColumnsAreNamedAsWrittenOrByAlias() {
    Statement.Select s =
        select(
            " SELECT @@GLOBAL.SERVER_ID, @@server_id AS x, @@session.time_zone `tz`, 'lit',"
                + " UNIX_TIMESTAMP( ), 42, NULL, -1.5 'neg'");
    assertThat(s.items())
        .extracting(SelectItem::columnName)
        .containsExactly(
            "@@GLOBAL.SERVER_ID", "x", "tz", "lit", "UNIX_TIMESTAMP( )", "42", "NULL", "neg");
    assertThat(s.items().get(0).expression())
        .isEqualTo(new Expression.SystemVariable(VariableScope.GLOBAL, "SERVER_ID"));
    assertThat(s.items().get(2).expression())
        .isEqualTo(new Expression.SystemVariable(VariableScope.SESSION, "time_zone"));
    assertThat(s.items().get(7).expression())
        .isEqualTo(new Expression.Literal(Expression.Literal.Kind.DECIMAL, "-1.5"));
    assertThat(s.limit()).isEqualTo(-1);
  }

  @Test
  void selectWithLimitFromDualAndSemicolon() {
    Statement.Select s = select("select @@version_comment limit 1;");
    assertThat(s.limit()).isEqualTo(1);
    assertThat(select("SELECT 1 FROM DUAL").items()).hasSize(1);
    assertThat(select("SELECT @@local.x").items().get(0).expression())
        .isEqualTo(new Expression.SystemVariable(VariableScope.SESSION, "x"));
  }

  @Test
  void functionsWithAndWithoutArguments() {
    Statement.Select s =
        select(
            "SELECT DATABASE(), USER(), CURRENT_USER(), CURRENT_USER, CONNECTION_ID(),"
                + " binlog_gtid_pos('binlog.000001',4)");
    assertThat(s.items().get(0).expression()).isEqualTo(new Expression.FunctionCall("DATABASE"));
    assertThat(s.items().get(3).expression())
        .isEqualTo(new Expression.FunctionCall("CURRENT_USER"));
    assertThat(s.items().get(5).expression())
        .isEqualTo(
            new Expression.FunctionCall(
                "BINLOG_GTID_POS",
                List.of(
                    new Expression.Literal(Expression.Literal.Kind.STRING, "binlog.000001"),
                    new Expression.Literal(Expression.Literal.Kind.INTEGER, "4"))));
    assertThat(s.items().get(5).columnName()).isEqualTo("binlog_gtid_pos('binlog.000001',4)");
  }

  @Test
  void setOfUserSessionAndNamesAssignments() {
    Statement.Set s =
        (Statement.Set)
            parse(
                "SET @a := 1, NAMES utf8mb4 COLLATE utf8mb4_bin, SESSION sql_mode = '',"
                    + " @@session.time_zone = '+00:00', autocommit = ON, LOCAL net_write_timeout=600, GLOBAL server_id = DEFAULT,"
                    + " character_set_results = NULL, CHARACTER SET latin1");
    assertThat(s.assignments())
        .containsExactly(
            new Assignment.UserVariable(
                "a", new Expression.Literal(Expression.Literal.Kind.INTEGER, "1")),
            new Assignment.Names("utf8mb4", "utf8mb4_bin"),
            new Assignment.SystemVariable(
                VariableScope.SESSION,
                "sql_mode",
                new Expression.Literal(Expression.Literal.Kind.STRING, "")),
            new Assignment.SystemVariable(
                VariableScope.SESSION,
                "time_zone",
                new Expression.Literal(Expression.Literal.Kind.STRING, "+00:00")),
            new Assignment.SystemVariable(
                VariableScope.DEFAULT, "autocommit", new Expression.Word("ON")),
            new Assignment.SystemVariable(
                VariableScope.SESSION,
                "net_write_timeout",
                new Expression.Literal(Expression.Literal.Kind.INTEGER, "600")),
            new Assignment.SystemVariable(
                VariableScope.GLOBAL, "server_id", new Expression.Default()),
            new Assignment.SystemVariable(
                VariableScope.DEFAULT, "character_set_results", Expression.Literal.nullValue()),
            new Assignment.Names("latin1", null));
  }

  @Test
  void showVariablesFilters() {
    Statement.ShowVariables like =
        (Statement.ShowVariables) parse("SHOW GLOBAL VARIABLES LIKE 'binlog\\_%'");
    assertThat(like.scope()).isEqualTo(VariableScope.GLOBAL);
    LikePattern pattern = ((ShowFilter.Like) like.filter()).pattern();
    assertThat(pattern.matches("binlog_checksum")).isTrue();
    assertThat(pattern.matches("binlogXchecksum")).isFalse();
    Statement.ShowVariables where =
        (Statement.ShowVariables) parse("show session variables where Variable_name = 'server_id'");
    assertThat(where.filter())
        .isEqualTo(
            new ShowFilter.Where(
                new Expression.Binary(
                    Expression.Operator.EQUAL,
                    new Expression.Column(null, "Variable_name"),
                    new Expression.Literal(Expression.Literal.Kind.STRING, "server_id"))));
    assertThat(((Statement.ShowVariables) parse("SHOW VARIABLES")).filter())
        .isEqualTo(new ShowFilter.All());
    assertThat(
            ((Statement.ShowVariables) parse("SHOW VARIABLES WHERE `variable_name` LIKE 'x%'"))
                .filter())
        .isEqualTo(
            new ShowFilter.Where(
                new Expression.Like(
                    new Expression.Column(null, "variable_name"),
                    new Expression.Literal(Expression.Literal.Kind.STRING, "x%"),
                    false)));
  }

  @Test
  void replicationShowStatementsKeepTheirSpelling() {
    assertThat(parse("SHOW MASTER STATUS"))
        .isEqualTo(new Statement.ShowBinaryLogStatus("MASTER STATUS", 5));
    assertThat(parse("show binlog status"))
        .isEqualTo(new Statement.ShowBinaryLogStatus("BINLOG STATUS", 5));
    assertThat(parse("SHOW  MASTER LOGS"))
        .isEqualTo(new Statement.ShowBinaryLogs("MASTER LOGS", 6));
    assertThat(parse("SHOW SLAVE HOSTS")).isEqualTo(new Statement.ShowReplicas("SLAVE HOSTS", 5));
    assertThat(parse("SHOW REPLICA HOSTS"))
        .isEqualTo(new Statement.ShowReplicas("REPLICA HOSTS", 5));
    assertThat(parse("SHOW WARNINGS LIMIT 5")).isEqualTo(new Statement.ShowWarnings());
  }

  @Test
  void commentsOfEveryKind() {
    assertThat(select("/* a */ SELECT -- line\n 1 # hash\n").items()).hasSize(1);
    assertThat(select("SELECT /*!80000 1, */ 2").items())
        .extracting(SelectItem::columnName)
        .containsExactly("1", "2");
    assertThat(select("SELECT /*!99999 1, */ 2").items())
        .extracting(SelectItem::columnName)
        .containsExactly("2");
    assertThat(select("SELECT /*! 1, */ 2").items()).hasSize(2);
    assertThat(select("SELECT /*+ hint */ 2").items()).hasSize(1);
    assertThat(select("SELECT /*M!100100 1, */ 2").items()).hasSize(1);
    assertThat(
            ((Statement.Select) SqlParser.parse("SELECT /*M!100100 1, */ 2", 101106, true)).items())
        .hasSize(2);
    assertThat(select("SELECT 1 -- comment").items()).hasSize(1);
    // "--x" is no comment (the dashes need a space after them): MySQL reads 1 - (-x), and so does
    // the parser.
    assertThat(select("SELECT 1 --x").items().get(0).expression())
        .isEqualTo(
            new Expression.Binary(
                Expression.Operator.MINUS,
                new Expression.Literal(Expression.Literal.Kind.INTEGER, "1"),
                new Expression.Unary(
                    Expression.Operator.NEGATE, new Expression.Column(null, "x"))));
  }

  @Test
  void quotingAndEscapes() {
    Statement.Select s =
        select(
            "SELECT 'it''s', \"a\\\"b\", 'x\\ny', 'con' 'cat', 'a\\%b' AS `we``ird`, @`odd var`, @'q'");
    assertThat(s.items()).hasSize(7);
    assertThat(((Expression.Literal) s.items().get(0).expression()).text()).isEqualTo("it's");
    assertThat(((Expression.Literal) s.items().get(1).expression()).text()).isEqualTo("a\"b");
    assertThat(((Expression.Literal) s.items().get(2).expression()).text()).isEqualTo("x\ny");
    assertThat(((Expression.Literal) s.items().get(3).expression()).text()).isEqualTo("concat");
    assertThat(((Expression.Literal) s.items().get(4).expression()).text()).isEqualTo("a\\%b");
    assertThat(s.items().get(4).columnName()).isEqualTo("we`ird");
    assertThat(s.items().get(5).expression()).isEqualTo(new Expression.UserVariable("odd var"));
    assertThat(s.items().get(6).expression()).isEqualTo(new Expression.UserVariable("q"));
  }

  @Test
  void keywordsIgnoreCase() {
    assertThat(parse("sHoW gLoBaL vArIaBlEs")).isInstanceOf(Statement.ShowVariables.class);
    assertThat(parse("SeT sEsSiOn X = 1")).isInstanceOf(Statement.Set.class);
  }

  @Test
  void syntaxErrorsQuoteTheRestLikeMysql() {
    assertNear("selec 1", "selec 1", 1);
    assertNear("select $$", "$$", 1);
    assertNear("SELECT 1,\n  FROM t", "FROM t", 2);
    assertNear("SELECT 1 2", "2", 1);
    assertNear("SHOW TABLEZ", "TABLEZ", 1);
    assertNear("SET x", "", 1);
    assertNear("SELECT 'unterminated", "'unterminated", 1);
    assertNear("SELECT /* open", "/* open", 1);
    assertNear("SELECT f(1, 2", "", 1);
    assertNear("DRO TABLE " + "x".repeat(200), "DRO TABLE " + "x".repeat(70), 1);
    assertNear("SELECT 1 FROM", "", 1);
    assertNear("SELECT a FROM t WHERE", "", 1);
    assertNear("SHOW VARIABLES WHERE Variable_name IN ()", ")", 1);
    assertNear("BEGIN TRANSACTION", "TRANSACTION", 1);
    assertNear("START TRANSACTION READ", "", 1);
    assertNear("COMMIT AND", "", 1);
    assertNear("SET TRANSACTION ISOLATION LEVEL READ", "", 1);
    assertNear("KILL", "", 1);
  }

  @Test
  void hostileInputIsBounded() {
    assertThatThrownBy(() -> parse("SELECT " + "(".repeat(100) + "1" + ")".repeat(100)))
        .isInstanceOf(SqlSyntaxError.class)
        .hasMessageContaining("nested");
    assertThatThrownBy(() -> parse("SELECT " + "1,".repeat(20_000) + "1"))
        .isInstanceOf(SqlSyntaxError.class)
        .hasMessageContaining("tokens");
    assertThatThrownBy(() -> parse("SELECT '" + "x".repeat(SqlParser.MAX_STATEMENT_CHARS) + "'"))
        .isInstanceOf(SqlSyntaxError.class);
  }

  @Test
  void versionNumbers() {
    assertThat(SqlParser.versionNumber("9.7.4-2")).isEqualTo(90704);
    assertThat(SqlParser.versionNumber("8.4.0-binlog-relay")).isEqualTo(80400);
    assertThat(SqlParser.versionNumber("10.11.19-MariaDB-0+deb12u1-log")).isEqualTo(101119);
  }

  private static void assertNear(String sql, String near, int line) {
    assertThatThrownBy(() -> parse(sql))
        .isInstanceOfSatisfying(
            SqlSyntaxError.class,
            e -> {
              assertThat(e.near()).isEqualTo(near);
              assertThat(e.line()).isEqualTo(line);
            });
  }
}
