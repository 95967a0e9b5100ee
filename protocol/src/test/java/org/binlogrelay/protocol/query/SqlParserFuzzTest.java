package org.binlogrelay.protocol.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.binlogrelay.protocol.testing.AllocationBudget;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target for the SQL the relay answers (docs/fuzzing.md): {@link SqlLexer} and {@link
 * SqlParser} on any text (the input's UTF-8), as a MySQL 9.7 and as a MariaDB 10.11 server.
 *
 * <p>Contract: the lexer gives ordered tokens inside the text, ending with END, never more than its
 * token limit; the parser returns a statement or throws {@link SqlSyntaxError} and nothing else,
 * whose quoted text is a piece of the statement of at most 80 characters and whose line exists;
 * what parses is well formed (the words a SHOW spelling names stand where it says); parsing is
 * deterministic; and allocation is bounded by the text's length. A statement that reads table
 * schemas is written again as text that parses back to the same statement.
 */
class SqlParserFuzzTest {
  private static final int MYSQL_97 = SqlParser.versionNumber("9.7.4");
  private static final int MARIADB_1011 = SqlParser.versionNumber("10.11.19-MariaDB-log");
  private static final int MAX_TOKENS = 64;

  static Stream<Arguments> statement() {
    return Stream.of(
            "SELECT @@version_comment LIMIT 1",
            "select UNIX_TIMESTAMP(), @@GLOBAL.server_id, @@session.sql_mode",
            "SHOW VARIABLES LIKE 'SERVER\\_ID'",
            "SHOW GLOBAL VARIABLES WHERE Variable_name = 'gtid_mode';",
            "SET @master_binlog_checksum= @@global.binlog_checksum, @source_heartbeat_period = 1799999979520",
            "SET NAMES utf8mb4 COLLATE utf8mb4_0900_ai_ci",
            "SET CHARACTER SET DEFAULT",
            "SET SESSION autocommit = ON, GLOBAL x := DEFAULT",
            "SHOW BINARY LOG STATUS",
            "show master logs",
            "SHOW SLAVE HOSTS",
            "SHOW WARNINGS LIMIT 10",
            "SET @slave_connect_state='0-1-100,2-1-4'",
            "SELECT binlog_gtid_pos('mariadb-bin.000001', 4)",
            "/*!40101 SET character_set_client = utf8 */",
            "/*M!100100 SET @x = 1 */ -- comment\n# another\nSELECT 1 FROM DUAL",
            "SELECT 'a' \"b\" 'c''d\\n' AS `x``y`, -1.5e3, +.5, 0x1F, NULL, TRUE, @`v`, @'w', CURRENT_USER",
            "SELECT ((1)) alias, 1abc",
            "/*+ hint */ SELECT 1; ",
            "SHOW FULL TABLES IN `shop` where Table_Type = 'BASE TABLE'",
            "SHOW CREATE TABLE a.`b``c`",
            "SHOW KEYS IN t FROM d WHERE Non_unique = 0 OR NOT (Key_name <=> 'x')",
            "SELECT COLUMN_NAME, COUNT(*) n FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = DATABASE()"
                + " AND DATA_TYPE NOT IN ('int', -1.5) ORDER BY 1 DESC LIMIT 2, 3")
        .map(s -> arguments((Object) s.getBytes(StandardCharsets.UTF_8)));
  }

  @MethodSource
  @FuzzTest
  void statement(byte[] input) {
    String sql = new String(input, StandardCharsets.UTF_8);
    lex(sql, MYSQL_97, false);
    lex(sql, MARIADB_1011, true);
    parse(sql, MYSQL_97, false);
    parse(sql, MARIADB_1011, true);
  }

  private static void lex(String sql, int version, boolean mariadb) {
    List<Token> tokens;
    try {
      tokens =
          AllocationBudget.of(1 << 20, 256, sql.length())
              .check(
                  "SqlLexer.tokenize",
                  () -> new SqlLexer(sql, version, mariadb, MAX_TOKENS).tokenize());
    } catch (SqlSyntaxError refused) {
      assertError(sql, refused);
      return;
    }
    assertThat(tokens).isNotEmpty();
    assertThat(tokens.size()).isLessThanOrEqualTo(MAX_TOKENS + 1);
    assertThat(tokens.get(tokens.size() - 1).type()).isEqualTo(TokenType.END);
    int previousEnd = 0;
    int previousLine = 1;
    for (Token t : tokens) {
      assertThat(t.start()).as("token %s", t).isBetween(previousEnd, sql.length());
      assertThat(t.end()).as("token %s", t).isBetween(t.start(), sql.length());
      assertThat(t.line()).as("token %s", t).isBetween(previousLine, lines(sql));
      assertThat(t.value()).isNotNull();
      if (t.type() == TokenType.WORD || t.type() == TokenType.NUMBER) {
        assertThat(t.value()).isEqualTo(sql.substring(t.start(), t.end())).isNotEmpty();
      }
      previousEnd = t.end();
      previousLine = t.line();
    }
  }

  private static void parse(String sql, int version, boolean mariadb) {
    Statement statement;
    try {
      statement =
          AllocationBudget.of(1 << 20, 512, sql.length())
              .check("SqlParser.parse", () -> SqlParser.parse(sql, version, mariadb));
    } catch (SqlSyntaxError refused) {
      assertError(sql, refused);
      return;
    }
    assertThat(SqlParser.parse(sql, version, mariadb))
        .as("parsing is deterministic")
        .isEqualTo(statement);
    if (statement instanceof Statement.Select select) {
      assertThat(select.items()).isNotEmpty();
      assertThat(select.limit()).isGreaterThanOrEqualTo(-1);
      for (SelectItem item : select.items()) {
        assertThat(item.columnName()).isNotNull();
      }
    } else if (statement instanceof Statement.Set set) {
      assertThat(set.assignments()).isNotEmpty();
    } else if (statement instanceof Statement.ShowBinaryLogs show) {
      assertSpelling(sql, show.spelling(), show.at(), "BINARY LOGS", "MASTER LOGS");
    } else if (statement instanceof Statement.ShowBinaryLogStatus show) {
      assertSpelling(
          sql, show.spelling(), show.at(), "BINARY LOG STATUS", "MASTER STATUS", "BINLOG STATUS");
    } else if (statement instanceof Statement.ShowReplicas show) {
      assertSpelling(sql, show.spelling(), show.at(), "REPLICAS", "SLAVE HOSTS", "REPLICA HOSTS");
    } else if (statement instanceof Statement.ShowVariables show) {
      assertThat(show.scope()).isNotNull();
      assertThat(show.filter()).isNotNull();
    } else if (statement instanceof Statement.Metadata metadata) {
      assertWrittenAgainStably(metadata.statement(), version, mariadb);
    } else {
      assertThat(statement).isNotNull();
    }
  }

  /** The text the relay forwards parses back to a statement that is written the same way. */
  private static void assertWrittenAgainStably(
      MetadataStatement statement, int version, boolean mariadb) {
    assertThat(statement.sql(new MetadataStatement.Rendering("db", false))).isNotBlank();
    MetadataStatement.Rendering rendering = new MetadataStatement.Rendering("db", true);
    String once = statement.sql(rendering);
    Statement again = SqlParser.parse(once, version, mariadb);
    assertThat(again).as(once).isInstanceOf(Statement.Metadata.class);
    assertThat(((Statement.Metadata) again).statement().sql(rendering)).isEqualTo(once);
  }

  /** The statement's text at {@code at} starts with the spelling's first word, in any case. */
  private static void assertSpelling(String sql, String spelling, int at, String... allowed) {
    assertThat(spelling).isIn((Object[]) allowed);
    String first = spelling.split(" ")[0];
    assertThat(at).isBetween(0, sql.length() - first.length());
    assertThat(sql.substring(at, at + first.length()).toUpperCase(Locale.ROOT)).isEqualTo(first);
  }

  private static void assertError(String sql, SqlSyntaxError e) {
    assertThat(e.near().length()).isLessThanOrEqualTo(SqlSyntaxError.NEAR_LIMIT);
    assertThat(sql).as("the text quoted by '%s'", e.getMessage()).contains(e.near());
    assertThat(e.line()).isBetween(1, lines(sql));
    assertThat(e.getMessage()).isNotBlank();
  }

  private static int lines(String sql) {
    return 1 + (int) sql.chars().filter(c -> c == '\n').count();
  }
}
