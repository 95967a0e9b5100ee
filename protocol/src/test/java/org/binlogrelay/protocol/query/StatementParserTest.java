package org.binlogrelay.protocol.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The statements JDBC connectors, CDC connectors, monitoring agents and DBA tools send beyond what
 * replicas send: transactions, SHOW STATUS, replica status, the process list, KILL, SHOW BINLOG
 * EVENTS, SELECT from a table with WHERE / ORDER BY / LIMIT, the table-schema statements, and valid
 * statements the server does not execute.
 */
class StatementParserTest {
  private static Statement parse(String sql) {
    return SqlParser.parse(sql, 90704, false);
  }

  private static Expression.Literal string(String s) {
    return new Expression.Literal(Expression.Literal.Kind.STRING, s);
  }

  private static Expression.Literal integer(String s) {
    return new Expression.Literal(Expression.Literal.Kind.INTEGER, s);
  }

  private static Expression.Column column(String name) {
    return new Expression.Column(null, name);
  }

  @Test
  void transactionControl() {
    assertThat(parse("BEGIN")).isEqualTo(new Statement.Begin(false));
    assertThat(parse("begin work;")).isEqualTo(new Statement.Begin(false));
    assertThat(parse("START TRANSACTION")).isEqualTo(new Statement.Begin(false));
    assertThat(parse("START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT"))
        .isEqualTo(new Statement.Begin(true));
    assertThat(parse("START TRANSACTION READ WRITE")).isEqualTo(new Statement.Begin(false));
    assertThat(parse("COMMIT")).isEqualTo(new Statement.EndTransaction(true, false, false));
    assertThat(parse("COMMIT WORK AND CHAIN NO RELEASE"))
        .isEqualTo(new Statement.EndTransaction(true, true, false));
    assertThat(parse("ROLLBACK AND NO CHAIN RELEASE"))
        .isEqualTo(new Statement.EndTransaction(false, false, true));
    assertThat(parse("rollback")).isEqualTo(new Statement.EndTransaction(false, false, false));
    assertThat(parse("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ"))
        .isEqualTo(new Statement.SetTransaction(VariableScope.SESSION, "REPEATABLE-READ", null));
    assertThat(parse("SET TRANSACTION READ ONLY, ISOLATION LEVEL READ UNCOMMITTED"))
        .isEqualTo(new Statement.SetTransaction(VariableScope.DEFAULT, "READ-UNCOMMITTED", true));
    assertThat(parse("SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE"))
        .isEqualTo(new Statement.SetTransaction(VariableScope.GLOBAL, "SERIALIZABLE", false));
    assertThat(parse("SET autocommit=0")).isInstanceOf(Statement.Set.class);
    assertThat(parse("ROLLBACK TO SAVEPOINT s"))
        .isEqualTo(new Statement.Unsupported("ROLLBACK TO SAVEPOINT"));
    assertThat(parse("SAVEPOINT s")).isEqualTo(new Statement.Unsupported("SAVEPOINT S"));
    assertThat(parse("START REPLICA")).isEqualTo(new Statement.Unsupported("START REPLICA"));
  }

  @Test
  void showStatusAndVariablesFilters() {
    assertThat(parse("SHOW GLOBAL STATUS"))
        .isEqualTo(new Statement.ShowStatus(VariableScope.GLOBAL, new ShowFilter.All()));
    assertThat(parse("SHOW SESSION STATUS LIKE 'Ssl_version'"))
        .isEqualTo(
            new Statement.ShowStatus(
                VariableScope.SESSION, new ShowFilter.Like(LikePattern.compile("Ssl_version"))));
    Statement in =
        parse("SHOW VARIABLES WHERE Variable_name IN ('character_set_server','collation_server')");
    assertThat(in)
        .isEqualTo(
            new Statement.ShowVariables(
                VariableScope.DEFAULT,
                new ShowFilter.Where(
                    new Expression.In(
                        column("Variable_name"),
                        List.of(string("character_set_server"), string("collation_server")),
                        false))));
    Statement both = parse("SHOW STATUS WHERE Variable_name = 'Uptime' AND Value > 0");
    assertThat(((Statement.ShowStatus) both).filter())
        .isEqualTo(
            new ShowFilter.Where(
                new Expression.Binary(
                    Expression.Operator.AND,
                    new Expression.Binary(
                        Expression.Operator.EQUAL, column("Variable_name"), string("Uptime")),
                    new Expression.Binary(
                        Expression.Operator.GREATER, column("Value"), integer("0")))));
  }

  @Test
  void replicaStatusSpellings() {
    assertThat(parse("SHOW REPLICA STATUS"))
        .isEqualTo(new Statement.ShowReplicaStatus("REPLICA STATUS", 5, false, null));
    assertThat(parse("show slave status"))
        .isEqualTo(new Statement.ShowReplicaStatus("SLAVE STATUS", 5, false, null));
    assertThat(parse("SHOW REPLICA STATUS FOR CHANNEL ''"))
        .isEqualTo(new Statement.ShowReplicaStatus("REPLICA STATUS", 5, false, ""));
    assertThat(parse("SHOW SLAVE 'conn' STATUS"))
        .isEqualTo(new Statement.ShowReplicaStatus("SLAVE STATUS", 5, false, "conn"));
    assertThat(parse("SHOW ALL SLAVES STATUS"))
        .isEqualTo(new Statement.ShowReplicaStatus("ALL SLAVES STATUS", 5, true, null));
    assertThat(parse("SHOW ALL REPLICAS STATUS"))
        .isEqualTo(new Statement.ShowReplicaStatus("ALL REPLICAS STATUS", 5, true, null));
  }

  @Test
  void processListKillAndBinlogEvents() {
    assertThat(parse("SHOW PROCESSLIST")).isEqualTo(new Statement.ShowProcessList(false));
    assertThat(parse("SHOW FULL PROCESSLIST")).isEqualTo(new Statement.ShowProcessList(true));
    assertThat(parse("KILL 12")).isEqualTo(new Statement.Kill(false, integer("12")));
    assertThat(parse("KILL CONNECTION 12")).isEqualTo(new Statement.Kill(false, integer("12")));
    assertThat(parse("KILL QUERY 12")).isEqualTo(new Statement.Kill(true, integer("12")));
    assertThat(parse("KILL HARD QUERY 12")).isEqualTo(new Statement.Kill(true, integer("12")));
    assertThat(parse("KILL USER bob")).isEqualTo(new Statement.Unsupported("KILL USER"));
    assertThat(parse("SHOW BINLOG EVENTS"))
        .isEqualTo(new Statement.ShowBinlogEvents(null, 4, 0, -1));
    assertThat(parse("SHOW BINLOG EVENTS IN 'binlog.000002' FROM 157 LIMIT 2, 10"))
        .isEqualTo(new Statement.ShowBinlogEvents("binlog.000002", 157, 2, 10));
    assertThat(parse("SHOW BINLOG EVENTS LIMIT 5"))
        .isEqualTo(new Statement.ShowBinlogEvents(null, 4, 0, 5));
    assertThat(parse("SHOW RELAYLOG EVENTS"))
        .isEqualTo(new Statement.Unsupported("SHOW RELAYLOG EVENTS"));
  }

  @Test
  void selectFromATable() {
    Statement.Select s =
        (Statement.Select)
            parse(
                "SELECT ID, `user` AS who, p.command FROM"
                    + " information_schema.PROCESSLIST p WHERE COMMAND LIKE 'Binlog%' AND NOT id = 3 ORDER BY id DESC, 2"
                    + " LIMIT 1, 5");
    assertThat(s.from()).isEqualTo(new TableName("information_schema", "PROCESSLIST"));
    assertThat(s.items())
        .extracting(SelectItem::columnName)
        .containsExactly("ID", "who", "command");
    assertThat(s.items().get(2).expression()).isEqualTo(new Expression.Column("p", "command"));
    assertThat(s.where())
        .isEqualTo(
            new Expression.Binary(
                Expression.Operator.AND,
                new Expression.Like(column("COMMAND"), string("Binlog%"), false),
                new Expression.Unary(
                    Expression.Operator.NOT,
                    new Expression.Binary(Expression.Operator.EQUAL, column("id"), integer("3")))));
    assertThat(s.orderBy())
        .containsExactly(
            new Statement.Ordering(column("id"), true),
            new Statement.Ordering(integer("2"), false));
    assertThat(s.limit()).isEqualTo(5);
    assertThat(s.offset()).isEqualTo(1);
    Statement.Select star =
        (Statement.Select) parse("select * from performance_schema.replication_connection_status");
    assertThat(star.items()).containsExactly(new SelectItem(new Expression.AllColumns(null), "*"));
    Statement.Select count =
        (Statement.Select)
            parse(
                "SELECT COUNT(*) FROM information_schema.processlist LIMIT 3"
                    + " OFFSET 1 FOR UPDATE");
    assertThat(count.items().get(0).expression())
        .isEqualTo(new Expression.FunctionCall("COUNT", List.of(new Expression.AllColumns(null))));
    assertThat(count.offset()).isEqualTo(1);
    assertThat(((Statement.Select) parse("SELECT 1 FROM DUAL WHERE 1 = 1")).from()).isNull();
  }

  @Test
  void operatorsBindAsInMysql() {
    Expression e =
        ((Statement.Select) parse("SELECT 1 + 2 * 3 = 7 OR NOT 0 AND 1"))
            .items()
            .get(0)
            .expression();
    assertThat(e)
        .isEqualTo(
            new Expression.Binary(
                Expression.Operator.OR,
                new Expression.Binary(
                    Expression.Operator.EQUAL,
                    new Expression.Binary(
                        Expression.Operator.PLUS,
                        integer("1"),
                        new Expression.Binary(
                            Expression.Operator.TIMES, integer("2"), integer("3"))),
                    integer("7")),
                new Expression.Binary(
                    Expression.Operator.AND,
                    new Expression.Unary(Expression.Operator.NOT, integer("0")),
                    integer("1"))));
    Expression between =
        ((Statement.Select) parse("SELECT 2 NOT BETWEEN 1 AND 3")).items().get(0).expression();
    assertThat(between).isInstanceOf(Expression.Unary.class);
    Expression isNull =
        ((Statement.Select) parse("SELECT @x IS NOT NULL")).items().get(0).expression();
    assertThat(isNull).isEqualTo(new Expression.IsNull(new Expression.UserVariable("x"), true));
    Expression gtid =
        ((Statement.Select) parse("SELECT GTID_SUBTRACT(@@global.gtid_executed, 'u:1-3')"))
            .items()
            .get(0)
            .expression();
    assertThat(gtid)
        .isEqualTo(
            new Expression.FunctionCall(
                "GTID_SUBTRACT",
                List.of(
                    new Expression.SystemVariable(VariableScope.GLOBAL, "gtid_executed"),
                    string("u:1-3"))));
    assertThat(((Statement.Select) parse("SELECT -@@server_id")).items().get(0).expression())
        .isEqualTo(
            new Expression.Unary(
                Expression.Operator.NEGATE,
                new Expression.SystemVariable(VariableScope.DEFAULT, "server_id")));
  }

  @Test
  void tableSchemaStatementsAreParsedForTheSchemaSource() {
    for (String sql :
        List.of(
            "SHOW DATABASES",
            "SHOW SCHEMAS LIKE 'a%'",
            "SHOW FULL TABLES FROM db",
            "SHOW TABLES",
            "SHOW CREATE TABLE `db`.`t`",
            "SHOW FULL COLUMNS FROM t FROM db",
            "SHOW CREATE DATABASE d")) {
      assertThat(parse(sql)).as(sql).isInstanceOf(Statement.Metadata.class);
    }
    // outside the schema source's grammar: parsed by the relay's own, answered with
    // ER_NOT_SUPPORTED_YET
    assertThat(parse("DESCRIBE db.t"))
        .isEqualTo(
            new Statement.ShowColumns(false, new TableName("db", "t"), new ShowFilter.All()));
    assertThat(parse("USE db")).isEqualTo(new Statement.Use("db"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "CREATE TABLE t (a int)",
        "INSERT INTO t VALUES (1)",
        "FLUSH BINARY LOGS",
        "SHOW ENGINE INNODB STATUS",
        "SHOW GRANTS FOR CURRENT_USER()",
        "SELECT a FROM t GROUP BY a",
        "SELECT * FROM a JOIN b",
        "SELECT * FROM a, b",
        "SELECT (SELECT 1)",
        "SELECT 1 UNION SELECT 2",
        "SELECT CASE WHEN 1 THEN 2 END",
        "LOCK TABLES t READ",
        "UNLOCK TABLES",
        "PURGE BINARY LOGS TO 'x'",
        "SET PASSWORD FOR x = 'y'",
        "SELECT 1 IN (SELECT 1)",
        "XA START 'x'",
        "DO 1",
        "SELECT DISTINCT a FROM t",
        "EXPLAIN SELECT 1",
        "SHOW COUNT(*) WARNINGS"
      })
  void validStatementsTheServerDoesNotRunAreUnsupported(String sql) {
    assertThat(parse(sql)).isInstanceOf(Statement.Unsupported.class);
  }

  @Test
  void unsupportedNamesTheStatement() {
    assertThat(parse("create table t (a int)"))
        .isEqualTo(new Statement.Unsupported("CREATE TABLE"));
    assertThat(parse("SHOW ENGINE INNODB STATUS"))
        .isEqualTo(new Statement.Unsupported("SHOW ENGINE INNODB"));
    assertThat(parse("SELECT a FROM t GROUP BY a"))
        .isEqualTo(new Statement.Unsupported("GROUP BY"));
  }

  @Test
  void inListsAreBounded() {
    StringBuilder sql = new StringBuilder("SELECT 1 IN (0");
    for (int i = 0; i < 1000; i++) {
      sql.append(',').append(i);
    }
    assertThatThrownBy(() -> parse(sql + ")"))
        .isInstanceOf(SqlSyntaxError.class)
        .hasMessageContaining("list");
  }
}
