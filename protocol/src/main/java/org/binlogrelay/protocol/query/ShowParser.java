package org.binlogrelay.protocol.query;

import java.util.Locale;
import java.util.Set;

/**
 * Parses {@code SHOW} statements:
 *
 * <pre>
 *   show    := SHOW [GLOBAL|SESSION|LOCAL] (VARIABLES | STATUS) [filter]
 *            | SHOW (BINARY|MASTER) LOGS | SHOW (BINARY LOG | MASTER | BINLOG) STATUS
 *            | SHOW BINLOG EVENTS [IN string] [FROM n] [LIMIT [m ','] n]
 *            | SHOW REPLICAS | SHOW (SLAVE|REPLICA) HOSTS
 *            | SHOW (REPLICA | SLAVE) [name] STATUS [FOR CHANNEL name] | SHOW ALL (SLAVES | REPLICAS) STATUS
 *            | SHOW [FULL] PROCESSLIST | SHOW (WARNINGS | ERRORS) [LIMIT [m ','] n]
 *            | SHOW (DATABASES | SCHEMAS) [filter] | SHOW [FULL] TABLES [(FROM | IN) db] [filter]
 *            | SHOW [FULL] (COLUMNS | FIELDS) (FROM | IN) table [(FROM | IN) db] [filter]
 *            | SHOW CREATE TABLE table
 *   filter  := LIKE string | WHERE expr
 * </pre>
 *
 * Other {@code SHOW} statements of MySQL's and MariaDB's grammars ({@code SHOW ENGINE}, {@code SHOW
 * GRANTS}, ...) are {@link TokenStream.UnsupportedSyntax}; an unknown word after SHOW is a syntax
 * error. Not thread-safe.
 */
final class ShowParser {
  /** What else may follow SHOW in MySQL's or MariaDB's grammar. */
  private static final Set<String> OTHER_SHOWS =
      Set.of(
          "AUTHORS",
          "CHARACTER",
          "CHARSET",
          "CLIENT_STATISTICS",
          "COLLATION",
          "CONTRIBUTORS",
          "COUNT",
          "CREATE",
          "ENGINE",
          "ENGINES",
          "ERRORS",
          "EVENTS",
          "EXPLAIN",
          "FUNCTION",
          "GRANTS",
          "INDEX",
          "INDEXES",
          "INDEX_STATISTICS",
          "KEYS",
          "LOCALES",
          "OPEN",
          "PACKAGE",
          "PARSE_TREE",
          "PLUGINS",
          "PRIVILEGES",
          "PROCEDURE",
          "PROFILE",
          "PROFILES",
          "QUERY_RESPONSE_TIME",
          "RELAYLOG",
          "STORAGE",
          "TABLE",
          "TABLE_STATISTICS",
          "TRIGGERS",
          "USER_STATISTICS",
          "WSREP_MEMBERSHIP",
          "WSREP_STATUS",
          "EXTENDED");

  private final TokenStream in;
  private final ExpressionParser expressions;

  ShowParser(TokenStream in, ExpressionParser expressions) {
    this.in = in;
    this.expressions = expressions;
  }

  Statement show() {
    in.next();
    Token t = in.peek();
    VariableScope scope = ExpressionParser.scopeWord(t);
    if (scope != null) {
      in.next();
      if (in.acceptWord("STATUS")) {
        return new Statement.ShowStatus(scope, filter());
      }
      in.expectWord("VARIABLES");
      return new Statement.ShowVariables(scope, filter());
    }
    String word = in.peekKeyword();
    int from = t.start();
    switch (word) {
      case "VARIABLES":
        in.next();
        return new Statement.ShowVariables(VariableScope.DEFAULT, filter());
      case "STATUS":
        in.next();
        return new Statement.ShowStatus(VariableScope.DEFAULT, filter());
      case "BINARY":
        in.next();
        if (in.acceptWord("LOGS")) {
          return new Statement.ShowBinaryLogs("BINARY LOGS", from);
        }
        in.expectWord("LOG");
        in.expectWord("STATUS");
        return new Statement.ShowBinaryLogStatus("BINARY LOG STATUS", from);
      case "MASTER":
        in.next();
        if (in.acceptWord("LOGS")) {
          return new Statement.ShowBinaryLogs("MASTER LOGS", from);
        }
        in.expectWord("STATUS");
        return new Statement.ShowBinaryLogStatus("MASTER STATUS", from);
      case "BINLOG":
        in.next();
        if (in.acceptWord("EVENTS")) {
          return binlogEvents();
        }
        in.expectWord("STATUS");
        return new Statement.ShowBinaryLogStatus("BINLOG STATUS", from);
      case "REPLICAS":
        in.next();
        return new Statement.ShowReplicas("REPLICAS", from);
      case "SLAVE":
      case "REPLICA":
        return replica(word, from);
      case "ALL":
        in.next();
        String plural = in.peekKeyword();
        if (!plural.equals("SLAVES") && !plural.equals("REPLICAS")) {
          throw in.error(in.peek(), "expected SLAVES or REPLICAS");
        }
        in.next();
        in.expectWord("STATUS");
        return new Statement.ShowReplicaStatus("ALL " + plural + " STATUS", from, true, null);
      case "FULL":
        in.next();
        if (in.acceptWord("PROCESSLIST")) {
          return new Statement.ShowProcessList(true);
        }
        if (in.peekWord("TABLES")) {
          return tables(true);
        }
        if (in.peekWord("COLUMNS") || in.peekWord("FIELDS")) {
          return columns(true);
        }
        throw in.error(in.peek(), "expected PROCESSLIST, TABLES or COLUMNS");
      case "PROCESSLIST":
        in.next();
        return new Statement.ShowProcessList(false);
      case "WARNINGS":
      case "ERRORS":
        in.next();
        if (in.acceptWord("LIMIT")) {
          in.count("a row count");
          if (in.accept(TokenType.COMMA)) {
            in.count("a row count");
          }
        }
        return new Statement.ShowWarnings();
      case "DATABASES":
      case "SCHEMAS":
        in.next();
        return new Statement.ShowDatabases(filter());
      case "TABLES":
        return tables(false);
      case "COLUMNS":
      case "FIELDS":
        return columns(false);
      case "CREATE":
        if (in.peek(1).isWord("TABLE")) {
          in.next();
          in.next();
          return new Statement.ShowCreateTable(in.tableName());
        }
        throw unsupported();
      default:
        if (OTHER_SHOWS.contains(word)) {
          throw unsupported();
        }
        throw in.error(t, "unsupported SHOW statement");
    }
  }

  private TokenStream.UnsupportedSyntax unsupported() {
    String first = in.next().value();
    Token second = in.peek();
    return in.unsupported(
        ("SHOW " + first + (second.type() == TokenType.WORD ? " " + second.value() : ""))
            .toUpperCase(Locale.ROOT));
  }

  /** After SLAVE or REPLICA: HOSTS, or [name] STATUS [FOR CHANNEL name]. */
  private Statement replica(String word, int from) {
    in.next();
    if (in.acceptWord("HOSTS")) {
      return new Statement.ShowReplicas(word + " HOSTS", from);
    }
    String channel = null;
    if (!in.peekWord("STATUS")) {
      channel = in.name("a connection name");
    }
    in.expectWord("STATUS");
    if (in.acceptWord("FOR")) {
      in.expectWord("CHANNEL");
      channel = in.name("a channel name");
    }
    return new Statement.ShowReplicaStatus(word + " STATUS", from, false, channel);
  }

  private Statement binlogEvents() {
    String file = null;
    long position = 4;
    long offset = 0;
    long count = -1;
    if (in.acceptWord("IN")) {
      file = in.expect(TokenType.STRING, "a binlog file name").value();
    }
    if (in.acceptWord("FROM")) {
      position = in.count("a position");
    }
    if (in.acceptWord("LIMIT")) {
      count = in.count("a row count");
      if (in.accept(TokenType.COMMA)) {
        offset = count;
        count = in.count("a row count");
      }
    }
    return new Statement.ShowBinlogEvents(file, position, offset, count);
  }

  private Statement tables(boolean full) {
    in.expectWord("TABLES");
    String database = null;
    if (in.acceptWord("FROM") || in.acceptWord("IN")) {
      database = in.identifier("a database name");
    }
    return new Statement.ShowTables(full, database, filter());
  }

  private Statement columns(boolean full) {
    in.next();
    if (!in.acceptWord("FROM")) {
      in.expectWord("IN");
    }
    TableName table = in.tableName();
    if (in.acceptWord("FROM") || in.acceptWord("IN")) {
      table = new TableName(in.identifier("a database name"), table.name());
    }
    return new Statement.ShowColumns(full, table, filter());
  }

  private ShowFilter filter() {
    if (in.acceptWord("LIKE")) {
      return new ShowFilter.Like(
          LikePattern.compile(in.expect(TokenType.STRING, "a pattern").value()));
    }
    if (in.acceptWord("WHERE")) {
      return new ShowFilter.Where(expressions.expression());
    }
    return new ShowFilter.All();
  }
}
