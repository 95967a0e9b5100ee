package org.binlogrelay.protocol.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The allow-list of statements the relay forwards to its schema source ({@link MetadataParser}):
 * what real CDC readers send is accepted and written again exactly ({@link MetadataStatement#sql});
 * anything that could read data, write, call a function with effects or smuggle a second statement
 * is refused with a syntax error at the offending token.
 */
class MetadataStatementTest {
  private static final int MYSQL_97 = 90704;
  private static final MetadataStatement.Rendering IN_SHOP =
      new MetadataStatement.Rendering("shop", true);
  private static final MetadataStatement.Rendering NO_DATABASE =
      new MetadataStatement.Rendering(null, true);

  private static MetadataStatement parse(String sql) {
    Statement statement = SqlParser.parse(sql, MYSQL_97, false);
    assertThat(statement).as(sql).isInstanceOf(Statement.Metadata.class);
    return ((Statement.Metadata) statement).statement();
  }

  private static String forwarded(String sql) {
    return parse(sql).sql(IN_SHOP);
  }

  /**
   * What python-mysql-replication, Debezium and Connector/J users send, and what the relay sends
   * on.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '~',
      value = {
        "SHOW DATABASES | SHOW DATABASES",
        "show schemas like 'sh%' | SHOW DATABASES LIKE 'sh%'",
        "SHOW FULL TABLES IN `shop` where Table_Type = 'BASE TABLE' | SHOW FULL TABLES FROM `shop` WHERE (`Table_Type` = 'BASE TABLE')",
        "SHOW TABLES | SHOW TABLES FROM `shop`",
        "SHOW TABLES FROM other LIKE 'o\\_%' | SHOW TABLES FROM `other` LIKE 'o\\\\_%'",
        "SHOW EXTENDED FULL TABLES | SHOW EXTENDED FULL TABLES FROM `shop`",
        "SHOW TABLE STATUS LIKE 'orders'; | SHOW TABLE STATUS FROM `shop` LIKE 'orders'",
        "SHOW CREATE TABLE `shop`.`orders` | SHOW CREATE TABLE `shop`.`orders`",
        "show create table orders | SHOW CREATE TABLE `shop`.`orders`",
        "SHOW CREATE DATABASE IF NOT EXISTS shop | SHOW CREATE DATABASE IF NOT EXISTS `shop`",
        "SHOW CREATE SCHEMA x | SHOW CREATE DATABASE `x`",
        "SHOW FULL COLUMNS FROM orders FROM other | SHOW FULL COLUMNS FROM `other`.`orders`",
        "SHOW FIELDS IN shop.orders LIKE 'id' | SHOW COLUMNS FROM `shop`.`orders` LIKE 'id'",
        "SHOW COLUMNS FROM orders WHERE `Key` = 'PRI' AND `Null` <> 'YES' | SHOW COLUMNS FROM `shop`.`orders` WHERE ((`Key` = 'PRI') AND (`Null` <> 'YES'))",
        "SHOW INDEX FROM orders | SHOW INDEX FROM `shop`.`orders`",
        "SHOW KEYS IN orders IN other WHERE Non_unique = 0 | SHOW INDEX FROM `other`.`orders` WHERE (`Non_unique` = 0)",
        "SHOW EXTENDED INDEXES FROM a.b | SHOW EXTENDED INDEX FROM `a`.`b`",
        "SELECT schema_name FROM information_schema.schemata | SELECT `schema_name` FROM `information_schema`.`SCHEMATA`",
        "SELECT schema_name, default_character_set_name, default_collation_name FROM information_schema.schemata"
            + " | SELECT `schema_name`, `default_character_set_name`, `default_collation_name` FROM `information_schema`.`SCHEMATA`",
        "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'orders' ORDER BY"
            + " ORDINAL_POSITION | SELECT `COLUMN_NAME` FROM `information_schema`.`COLUMNS` WHERE ((`TABLE_SCHEMA` = 'shop')"
            + " AND (`TABLE_NAME` = 'orders')) ORDER BY `ORDINAL_POSITION` ASC",
        "SELECT c.COLUMN_NAME AS name, COUNT(*) FROM information_schema.columns c WHERE c.TABLE_SCHEMA = DATABASE()"
            + " LIMIT 5, 10 | SELECT `c`.`COLUMN_NAME` AS `name`, COUNT(*) AS `COUNT(*)` FROM `information_schema`.`COLUMNS`"
            + " AS `c` WHERE (`c`.`TABLE_SCHEMA` = 'shop') LIMIT 10 OFFSET 5",
        "SELECT DISTINCT TABLE_SCHEMA FROM information_schema.TABLES WHERE TABLE_TYPE IN ('BASE TABLE', 'VIEW') AND NOT"
            + " (TABLE_SCHEMA LIKE 'mysql' OR TABLE_ROWS IS NULL) ORDER BY 1 DESC | SELECT DISTINCT `TABLE_SCHEMA` FROM"
            + " `information_schema`.`TABLES` WHERE ((`TABLE_TYPE` IN ('BASE TABLE', 'VIEW')) AND (NOT ((`TABLE_SCHEMA`"
            + " LIKE 'mysql') OR (`TABLE_ROWS` IS NULL)))) ORDER BY 1 DESC",
        "select * from information_schema.statistics where table_schema=\"shop\" and index_name!='PRIMARY' | SELECT *"
            + " FROM `information_schema`.`STATISTICS` WHERE ((`table_schema` = 'shop') AND (`index_name` != 'PRIMARY'))",
        "SELECT * FROM information_schema.KEY_COLUMN_USAGE WHERE LOWER(TABLE_NAME)<=>lower('Orders') LIMIT 3 OFFSET 1"
            + " | SELECT * FROM `information_schema`.`KEY_COLUMN_USAGE` WHERE (LOWER(`TABLE_NAME`) <=> LOWER('Orders'))"
            + " LIMIT 3 OFFSET 1",
      })
  void acceptsWhatCdcReadersSendAndWritesItAgain(String sql, String expected) {
    assertThat(forwarded(sql)).isEqualTo(expected);
  }

  @Test
  void pythonMysqlReplicationsColumnQueryWithItsParametersFilledIn() {
    String sql =
        "\n            SELECT\n                COLUMN_NAME, COLLATION_NAME, CHARACTER_SET_NAME,\n"
            + "                COLUMN_COMMENT, COLUMN_TYPE, COLUMN_KEY, ORDINAL_POSITION,\n"
            + "                DATA_TYPE, CHARACTER_OCTET_LENGTH\n            FROM\n"
            + "                information_schema.columns\n            WHERE\n"
            + "                table_schema = 'shop' AND table_name = 'it''s'\n            ORDER BY ORDINAL_POSITION\n";
    assertThat(forwarded(sql))
        .isEqualTo(
            "SELECT `COLUMN_NAME`, `COLLATION_NAME`, `CHARACTER_SET_NAME`,"
                + " `COLUMN_COMMENT`, `COLUMN_TYPE`, `COLUMN_KEY`, `ORDINAL_POSITION`, `DATA_TYPE`, `CHARACTER_OCTET_LENGTH`"
                + " FROM `information_schema`.`COLUMNS` WHERE ((`table_schema` = 'shop') AND (`table_name` = 'it''s'))"
                + " ORDER BY `ORDINAL_POSITION` ASC");
  }

  @Test
  void namesAndStringsAreQuotedSoTheyStayNamesAndStrings() {
    assertThat(forwarded("SHOW CREATE TABLE `we``ird`.`t; DROP TABLE x`"))
        .isEqualTo("SHOW CREATE TABLE `we``ird`.`t; DROP TABLE x`");
    assertThat(forwarded("SHOW TABLES LIKE 'a'' OR 1=1 -- \\\\'"))
        .isEqualTo("SHOW TABLES FROM `shop` LIKE 'a'' OR 1=1 -- \\\\'");
    assertThat(
            parse("SHOW TABLES LIKE 'a\\\\b'").sql(new MetadataStatement.Rendering("shop", false)))
        .as("NO_BACKSLASH_ESCAPES: a backslash is an ordinary character")
        .isEqualTo("SHOW TABLES FROM `shop` LIKE 'a\\b'");
    assertThat(
            forwarded(
                "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_NAME = 'x\\n\"y'"))
        .isEqualTo(
            "SELECT `TABLE_NAME` FROM `information_schema`.`TABLES` WHERE (`TABLE_NAME` = 'x\n\"y')");
  }

  @Test
  void commentsAndExecutableCommentsAreNotForwarded() {
    assertThat(forwarded("/* a */ SHOW /*!50000 FULL */ TABLES -- x\n /*!99999 ; DROP TABLE t */"))
        .isEqualTo("SHOW FULL TABLES FROM `shop`");
  }

  @Test
  void theCurrentDatabaseIsWrittenIntoTheStatement() {
    MetadataStatement show = parse("SHOW COLUMNS FROM orders");
    assertThat(show.usesCurrentDatabase()).isTrue();
    assertThatThrownBy(() -> show.sql(NO_DATABASE)).isInstanceOf(IllegalStateException.class);
    assertThat(parse("SHOW COLUMNS FROM shop.orders").usesCurrentDatabase()).isFalse();
    assertThat(
            parse("SELECT SCHEMA() FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = DATABASE()")
                .sql(NO_DATABASE))
        .isEqualTo(
            "SELECT NULL AS `SCHEMA()` FROM `information_schema`.`SCHEMATA` WHERE"
                + " (`SCHEMA_NAME` = NULL)");
  }

  /**
   * Tricks that must not reach the schema source: data reads, writes, functions, variables, more
   * statements.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '~',
      value = {
        "SELECT * FROM shop.orders | * FROM shop.orders",
        "SELECT * FROM `information_schema`.`USER_PRIVILEGES` | * FROM `information_schema`.`USER_PRIVILEGES`",
        "SELECT * FROM information_schema.PROCESSLIST | * FROM information_schema.PROCESSLIST",
        "SHOW CREATE TABLE t; DROP TABLE t | DROP TABLE t",
        "SHOW CREATE TABLE t; SHOW CREATE TABLE u | SHOW CREATE TABLE u",
        "SHOW DATABASES /*!50000 ; DROP DATABASE shop */ | DROP DATABASE shop */",
        "SHOW TABLES FROM shop WHERE Tables_in_shop = @x | @x",
        "SHOW TABLES WHERE Tables_in_shop = @@hostname | @@hostname",
        "SHOW COLUMNS FROM t WHERE Field IN (SELECT user FROM mysql.user) | user FROM mysql.user)",
        "SELECT LOAD_FILE('/etc/passwd') FROM information_schema.TABLES | LOAD_FILE('/etc/passwd') FROM information_schema.TABLES",
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE SLEEP(10) = 0 | SLEEP(10) = 0",
        "SELECT * FROM information_schema.TABLES INTO OUTFILE '/tmp/x' | INTO OUTFILE '/tmp/x'",
        "SELECT * FROM information_schema.TABLES UNION SELECT * FROM mysql.user | UNION SELECT * FROM mysql.user",
        "SELECT * FROM information_schema.TABLES, mysql.user | , mysql.user",
        "SELECT * FROM information_schema.TABLES t JOIN mysql.user u | JOIN mysql.user u",
        "SELECT * FROM information_schema.TABLES FOR UPDATE | FOR UPDATE",
        "SELECT * FROM information_schema.TABLES WHERE TABLE_NAME = (SELECT 1) | (SELECT 1)",
        "SELECT (SELECT authentication_string FROM mysql.user LIMIT 1) FROM information_schema.TABLES | (SELECT"
            + " authentication_string FROM mysql.user LIMIT 1) FROM information_schema.T",
        "SELECT * FROM information_schema.TABLES GROUP BY TABLE_SCHEMA | GROUP BY TABLE_SCHEMA",
        "SELECT @@global.gtid_executed FROM information_schema.TABLES | @@global.gtid_executed FROM information_schema.TABLES",
        "SHOW CREATE TABLE \"t\" | \"t\"",
        "SHOW CREATE PROCEDURE p | CREATE PROCEDURE p",
        "SHOW CREATE USER root | CREATE USER root",
        "SHOW GRANTS | GRANTS",
        "SHOW INDEX FROM t LIKE 'x' | LIKE 'x'",
        "SHOW TABLES LIKE 'a\\0b' | 'a\\0b'",
        "SHOW CREATE TABLE `` | ``",
      })
  void refusesAnythingElse(String sql, String near) {
    Statement parsed;
    try {
      parsed = SqlParser.parse(sql, MYSQL_97, false);
    } catch (SqlSyntaxError e) {
      assertThat(e.near()).isEqualTo(near);
      return;
    }
    // valid SQL of another kind (a data read, SHOW GRANTS): the relay's own grammar takes it, never
    // the schema
    // source; the responder refuses it (ER_NOT_SUPPORTED_YET, or ER_NO_DB_ERROR for a table it does
    // not have)
    assertThat(parsed)
        .as(sql)
        .isInstanceOfAny(Statement.Unsupported.class, Statement.Select.class)
        .isNotInstanceOf(Statement.Metadata.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SHOW DATABASES",
        "SHOW FULL TABLES IN `shop` where Table_Type = 'BASE TABLE'",
        "SHOW COLUMNS FROM orders WHERE `Key` = 'PRI' AND `Null` <> 'YES' OR NOT Extra LIKE '%auto%' ESCAPE '|'",
        "SELECT c.COLUMN_NAME AS name, COUNT(DISTINCT DATA_TYPE) n, UPPER(c.TABLE_NAME) FROM information_schema.columns c"
            + " WHERE c.TABLE_SCHEMA = DATABASE() AND ORDINAL_POSITION >= -1.5e3 AND COLUMN_DEFAULT IS NOT NULL"
            + " AND DATA_TYPE NOT IN ('int', 'blob') ORDER BY name DESC, 2 LIMIT 5",
      })
  void whatTheRelayWritesParsesBackToTheSameStatement(String sql) {
    String once = forwarded(sql);
    assertThat(forwarded(once)).isEqualTo(once);
  }

  @Test
  void comparisonsReadTheSameWhetherTheLexerJoinsTheirCharactersOrNot() {
    String sql = "SHOW TABLES WHERE a <=> b";
    List<Token> split = new SqlLexer(sql, MYSQL_97, false, 100).tokenize();
    List<Token> joined = new ArrayList<>(split.subList(0, 4));
    joined.add(new Token(TokenType.SYMBOL, "<=>", 22, 25, 1));
    joined.addAll(split.subList(split.size() - 2, split.size()));
    assertThat(joined.get(3).value()).isEqualTo("a");
    assertThat(new MetadataParser(sql, joined).statement().sql(IN_SHOP))
        .isEqualTo(new MetadataParser(sql, split).statement().sql(IN_SHOP))
        .isEqualTo("SHOW TABLES FROM `shop` WHERE (`a` <=> `b`)");
  }

  @Test
  void statementsOfTheRelaysOwnGrammarAreNotTakenForMetadata() {
    assertThat(SqlParser.parse("SHOW VARIABLES LIKE 'x'", MYSQL_97, false))
        .isInstanceOf(Statement.ShowVariables.class);
    assertThat(SqlParser.parse("SELECT 1 FROM DUAL", MYSQL_97, false))
        .isInstanceOf(Statement.Select.class);
    assertThat(SqlParser.parse("SHOW BINARY LOGS", MYSQL_97, false))
        .isInstanceOf(Statement.ShowBinaryLogs.class);
    assertThat(SqlParser.parse("SHOW FULL PROCESSLIST", MYSQL_97, false))
        .isInstanceOf(Statement.ShowProcessList.class);
  }
}
