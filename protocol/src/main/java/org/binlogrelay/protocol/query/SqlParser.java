package org.binlogrelay.protocol.query;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A recursive-descent parser for the statements a binlog server answers (see {@link Statement}):
 *
 * <pre>
 *   statement  := (select | show | set | begin | commit | rollback | kill | use | describe) [';']
 *   select     := SELECT [DISTINCT | modifiers] item {',' item} [FROM (DUAL | table [[AS] alias])]
 *                 [WHERE expr] [ORDER BY key [ASC | DESC] {',' ...}] [LIMIT n [OFFSET m] | LIMIT m ',' n]
 *                 [FOR UPDATE | FOR SHARE | LOCK IN SHARE MODE]
 *   item       := expr [[AS] alias] | [table '.'] '*'
 *   set        := SET assignment {',' assignment} | SET [GLOBAL | SESSION] TRANSACTION characteristic {',' ...}
 *   assignment := '@'name ('='|':=') value | NAMES (charset|DEFAULT) [COLLATE name]
 *               | CHARACTER SET charset | [GLOBAL|SESSION|LOCAL] name '=' value | sysvar '=' value
 *   value      := expr | word | DEFAULT
 *   begin      := BEGIN [WORK] | START TRANSACTION [READ ONLY | READ WRITE | WITH CONSISTENT SNAPSHOT {',' ...}]
 *   commit     := (COMMIT | ROLLBACK) [WORK] [AND [NO] CHAIN] [[NO] RELEASE]
 *   kill       := KILL [HARD | SOFT] [CONNECTION | QUERY [ID]] expr
 *   use        := USE name
 *   describe   := (DESCRIBE | DESC | EXPLAIN) table
 * </pre>
 *
 * {@code SHOW} statements are {@link ShowParser}'s, expressions {@link ExpressionParser}'s, and the
 * statements that read table schemas {@link MetadataParser}'s ({@link MetadataStatement}),
 * recognised by their first tokens before anything else. A statement that starts like one of
 * MySQL's or MariaDB's other statements ({@code CREATE}, {@code FLUSH}, {@code INSERT}, ...), or
 * uses a construct this server does not evaluate (a JOIN, GROUP BY, a subquery), is {@link
 * Statement.Unsupported}. Anything else throws {@link SqlSyntaxError} pointing at the first token
 * that does not fit, as MySQL's ER_PARSE_ERROR does. Keywords are case-insensitive. Not
 * thread-safe; one instance per statement.
 */
public final class SqlParser {
  /** Statements longer than this are refused before lexing. */
  public static final int MAX_STATEMENT_CHARS = 1 << 20;

  private static final int MAX_TOKENS = 10_000;
  private static final int MAX_ORDER_KEYS = 16;

  /** Words that may follow an expression in a select list without being its alias. */
  private static final Set<String> NOT_ALIASES =
      Set.of(
          "FROM",
          "LIMIT",
          "WHERE",
          "INTO",
          "UNION",
          "ORDER",
          "GROUP",
          "HAVING",
          "FOR",
          "LOCK",
          "WINDOW",
          "EXCEPT",
          "INTERSECT");

  /**
   * The first words of MySQL's and MariaDB's other statements: valid SQL this server does not
   * execute, answered "not supported" rather than as a syntax error.
   */
  private static final Set<String> OTHER_STATEMENTS =
      Set.of(
          "ALTER",
          "ANALYZE",
          "BACKUP",
          "BINLOG",
          "CACHE",
          "CALL",
          "CHANGE",
          "CHECK",
          "CHECKSUM",
          "CLONE",
          "CREATE",
          "DEALLOCATE",
          "DELETE",
          "DO",
          "DROP",
          "EXECUTE",
          "FLUSH",
          "GET",
          "GRANT",
          "HANDLER",
          "HELP",
          "IMPORT",
          "INSERT",
          "INSTALL",
          "LOAD",
          "LOCK",
          "OPTIMIZE",
          "PREPARE",
          "PURGE",
          "RELEASE",
          "RENAME",
          "REPAIR",
          "REPLACE",
          "RESET",
          "RESIGNAL",
          "RESTART",
          "REVOKE",
          "SAVEPOINT",
          "SHUTDOWN",
          "SIGNAL",
          "STOP",
          "TABLE",
          "TRUNCATE",
          "UNINSTALL",
          "UNLOCK",
          "UPDATE",
          "VALUES",
          "WITH",
          "XA");

  private final TokenStream in;
  private final ExpressionParser expressions;

  private SqlParser(String sql, List<Token> tokens) {
    this.in = new TokenStream(sql, tokens);
    this.expressions = new ExpressionParser(in);
  }

  /**
   * Parses one statement.
   *
   * @param sql the statement text
   * @param serverVersion the version number executable comments compare with (80400 for 8.4.0)
   * @param mariadb whether {@code /*M!} comments run
   */
  public static Statement parse(String sql, int serverVersion, boolean mariadb) {
    if (sql.length() > MAX_STATEMENT_CHARS) {
      throw new SqlSyntaxError(
          "statement of " + sql.length() + " characters", sql.substring(0, 80), 1);
    }
    List<Token> tokens = new SqlLexer(sql, serverVersion, mariadb, MAX_TOKENS).tokenize();
    if (MetadataParser.recognizes(tokens)) {
      return new Statement.Metadata(new MetadataParser(sql, tokens).statement());
    }
    SqlParser parser = new SqlParser(sql, tokens);
    try {
      return parser.statement();
    } catch (TokenStream.UnsupportedSyntax e) {
      return new Statement.Unsupported(e.getMessage());
    }
  }

  /**
   * The version number MySQL compares executable comments with: "8.4.0-x" is 80400, "10.11.6" is
   * 101106.
   */
  public static int versionNumber(String serverVersion) {
    String[] parts = serverVersion.split("[^0-9]", -1);
    int[] numbers = new int[3];
    int found = 0;
    for (String part : parts) {
      if (found == 3) {
        break;
      }
      if (part.isEmpty()) {
        if (found > 0) {
          break;
        }
        continue;
      }
      numbers[found++] = Integer.parseInt(part.length() > 4 ? part.substring(0, 4) : part);
    }
    return numbers[0] * 10000 + numbers[1] * 100 + numbers[2];
  }

  private Statement statement() {
    Token first = in.peek();
    String keyword = in.peekKeyword();
    Statement statement;
    switch (keyword) {
      case "SELECT":
        statement = select();
        break;
      case "SHOW":
        statement = new ShowParser(in, expressions).show();
        break;
      case "SET":
        statement = set();
        break;
      case "BEGIN":
        statement = begin();
        break;
      case "START":
        statement = start();
        break;
      case "COMMIT":
      case "ROLLBACK":
        statement = endTransaction();
        break;
      case "KILL":
        statement = kill();
        break;
      case "USE":
        in.next();
        statement = new Statement.Use(in.identifier("a database name"));
        break;
      case "DESCRIBE":
      case "DESC":
      case "EXPLAIN":
        statement = describe();
        break;
      default:
        if (OTHER_STATEMENTS.contains(keyword)) {
          throw in.unsupported(leadingWords());
        }
        throw in.error(first, "unsupported statement");
    }
    in.accept(TokenType.SEMICOLON);
    if (!in.atEnd()) {
      throw in.error(in.peek(), "unexpected text after the statement");
    }
    return statement;
  }

  /**
   * The statement's first two words, upper case ("CREATE TABLE"), as ER_NOT_SUPPORTED_YET names a
   * statement.
   */
  private String leadingWords() {
    String first = in.next().value().toUpperCase(Locale.ROOT);
    Token second = in.peek();
    return second.type() == TokenType.WORD
        ? first + " " + second.value().toUpperCase(Locale.ROOT)
        : first;
  }

  // ---- SELECT ----

  private Statement select() {
    in.next();
    boolean distinct = false;
    while (true) {
      String k = in.peekKeyword();
      if (k.equals("DISTINCT") || k.equals("DISTINCTROW")) {
        distinct = true;
      } else if (!k.equals("ALL")
          && !k.startsWith("SQL_")
          && !k.equals("HIGH_PRIORITY")
          && !k.equals("STRAIGHT_JOIN")) {
        break;
      }
      in.next();
    }
    if (distinct) {
      throw in.unsupported("SELECT DISTINCT");
    }
    List<SelectItem> items = new ArrayList<>();
    do {
      items.add(selectItem());
    } while (in.accept(TokenType.COMMA));
    if (in.peekWord("INTO")) {
      throw in.unsupported("SELECT ... INTO");
    }
    TableName from = null;
    if (in.acceptWord("FROM")) {
      if (!in.acceptWord("DUAL")) {
        if (in.peek().type() == TokenType.LEFT_PAREN) {
          throw in.unsupported("derived table");
        }
        from = in.tableName();
        if (in.acceptWord("AS")) {
          in.identifier("an alias");
        } else if (in.peek().type() == TokenType.QUOTED_IDENTIFIER
            || (in.peek().type() == TokenType.WORD
                && !ExpressionParser.RESERVED.contains(in.peekKeyword())
                && !in.peekWord("NATURAL"))) {
          in.next();
        }
        if (in.peek().type() == TokenType.COMMA
            || in.peekWord("JOIN")
            || in.peekWord("INNER")
            || in.peekWord("LEFT")
            || in.peekWord("RIGHT")
            || in.peekWord("CROSS")
            || in.peekWord("NATURAL")
            || in.peekWord("STRAIGHT_JOIN")) {
          throw in.unsupported("JOIN");
        }
      }
    }
    Expression where = null;
    if (in.acceptWord("WHERE")) {
      where = expressions.expression();
    }
    if (in.peekWord("GROUP") || in.peekWord("HAVING") || in.peekWord("WINDOW")) {
      throw in.unsupported(in.peekKeyword().equals("GROUP") ? "GROUP BY" : in.peekKeyword());
    }
    List<Statement.Ordering> orderBy = new ArrayList<>();
    if (in.acceptWord("ORDER")) {
      in.expectWord("BY");
      do {
        if (orderBy.size() == MAX_ORDER_KEYS) {
          throw in.error(in.peek(), "more than " + MAX_ORDER_KEYS + " ORDER BY keys");
        }
        Expression key = expressions.expression();
        boolean descending = in.acceptWord("DESC");
        if (!descending) {
          in.acceptWord("ASC");
        }
        orderBy.add(new Statement.Ordering(key, descending));
      } while (in.accept(TokenType.COMMA));
    }
    long limit = -1;
    long offset = 0;
    if (in.acceptWord("LIMIT")) {
      limit = in.count("a row count");
      if (in.accept(TokenType.COMMA)) {
        offset = limit;
        limit = in.count("a row count");
      } else if (in.acceptWord("OFFSET")) {
        offset = in.count("an offset");
      }
    }
    lockingClause();
    if (in.peekWord("UNION") || in.peekWord("EXCEPT") || in.peekWord("INTERSECT")) {
      throw in.unsupported(in.peekKeyword());
    }
    return new Statement.Select(items, from, where, orderBy, limit, offset);
  }

  /**
   * {@code FOR UPDATE | FOR SHARE [NOWAIT | SKIP LOCKED] | LOCK IN SHARE MODE}: nothing to lock
   * here.
   */
  private void lockingClause() {
    if (in.acceptWord("FOR")) {
      if (!in.acceptWord("UPDATE")) {
        in.expectWord("SHARE");
      }
      if (!in.acceptWord("NOWAIT") && in.acceptWord("SKIP")) {
        in.expectWord("LOCKED");
      }
    } else if (in.acceptWord("LOCK")) {
      in.expectWord("IN");
      in.expectWord("SHARE");
      in.expectWord("MODE");
    }
  }

  private SelectItem selectItem() {
    Token start = in.peek();
    if (start.type() == TokenType.STAR) {
      in.next();
      return new SelectItem(new Expression.AllColumns(null), "*");
    }
    Expression expression = expressions.expression();
    if (expression instanceof Expression.AllColumns) {
      return new SelectItem(expression, "*");
    }
    int end = in.previous().end();
    String name =
        expression instanceof Expression.Literal l && l.kind() == Expression.Literal.Kind.STRING
            ? l.text()
            : expression instanceof Expression.Column c
                ? c.name()
                : in.sql().substring(start.start(), end);
    Token next = in.peek();
    if (next.isWord("AS")) {
      in.next();
      return new SelectItem(expression, alias());
    }
    if ((next.type() == TokenType.WORD
            && !NOT_ALIASES.contains(next.value().toUpperCase(Locale.ROOT)))
        || next.type() == TokenType.QUOTED_IDENTIFIER
        || next.type() == TokenType.STRING) {
      return new SelectItem(expression, alias());
    }
    return new SelectItem(expression, name);
  }

  private String alias() {
    Token t = in.peek();
    if (t.type() == TokenType.WORD
        || t.type() == TokenType.QUOTED_IDENTIFIER
        || t.type() == TokenType.STRING) {
      in.next();
      return t.value();
    }
    throw in.error(t, "expected an alias");
  }

  // ---- SET ----

  private Statement set() {
    in.next();
    VariableScope scope = ExpressionParser.scopeWord(in.peek());
    if (in.peekWord("TRANSACTION") || (scope != null && in.peek(1).isWord("TRANSACTION"))) {
      if (scope != null) {
        in.next();
      }
      in.next();
      return setTransaction(scope == null ? VariableScope.DEFAULT : scope);
    }
    String k = in.peekKeyword();
    if (k.equals("PASSWORD") && in.peek(1).type() != TokenType.EQUALS
        || k.equals("ROLE")
        || (k.equals("DEFAULT") && in.peek(1).isWord("ROLE"))
        || (k.equals("RESOURCE") && in.peek(1).isWord("GROUP"))
        || (k.equals("STATEMENT") && in.peek(1).type() != TokenType.EQUALS)) {
      throw in.unsupported("SET " + k);
    }
    List<Assignment> assignments = new ArrayList<>();
    do {
      assignments.add(assignment());
    } while (in.accept(TokenType.COMMA));
    return new Statement.Set(assignments);
  }

  private Statement setTransaction(VariableScope scope) {
    String isolation = null;
    Boolean readOnly = null;
    do {
      if (in.acceptWord("ISOLATION")) {
        in.expectWord("LEVEL");
        isolation = isolationLevel();
      } else if (in.acceptWord("READ")) {
        if (in.acceptWord("ONLY")) {
          readOnly = true;
        } else {
          in.expectWord("WRITE");
          readOnly = false;
        }
      } else {
        throw in.error(in.peek(), "expected ISOLATION LEVEL, READ ONLY or READ WRITE");
      }
    } while (in.accept(TokenType.COMMA));
    return new Statement.SetTransaction(scope, isolation, readOnly);
  }

  private String isolationLevel() {
    if (in.acceptWord("SERIALIZABLE")) {
      return "SERIALIZABLE";
    }
    if (in.acceptWord("REPEATABLE")) {
      in.expectWord("READ");
      return "REPEATABLE-READ";
    }
    in.expectWord("READ");
    if (in.acceptWord("COMMITTED")) {
      return "READ-COMMITTED";
    }
    in.expectWord("UNCOMMITTED");
    return "READ-UNCOMMITTED";
  }

  private Assignment assignment() {
    Token t = in.peek();
    if (t.type() == TokenType.USER_VARIABLE) {
      in.next();
      if (t.value().isEmpty()) {
        throw in.error(t, "expected a user variable name after @");
      }
      if (!in.accept(TokenType.EQUALS) && !in.accept(TokenType.ASSIGN)) {
        throw in.error(in.peek(), "expected '=' or ':='");
      }
      return new Assignment.UserVariable(t.value(), value());
    }
    if (t.type() == TokenType.AT_AT) {
      Expression.SystemVariable variable = expressions.systemVariable();
      expectEquals();
      return new Assignment.SystemVariable(variable.scope(), variable.name(), value());
    }
    if (t.isWord("NAMES")) {
      in.next();
      String charset = charsetName();
      String collation = null;
      if (in.acceptWord("COLLATE")) {
        collation = charsetName();
      }
      return new Assignment.Names(charset, collation);
    }
    if ((t.isWord("CHARACTER") && in.peek(1).isWord("SET")) || t.isWord("CHARSET")) {
      in.next();
      if (t.isWord("CHARACTER")) {
        in.next();
      }
      return new Assignment.Names(charsetName(), null);
    }
    VariableScope scope = VariableScope.DEFAULT;
    VariableScope prefix = ExpressionParser.scopeWord(t);
    if (prefix != null && in.peek(1).type() != TokenType.EQUALS) {
      in.next();
      scope = prefix;
    }
    Token name = expressions.variableName();
    if (in.peek().type() == TokenType.DOT && ExpressionParser.scopeWord(name) == null) {
      throw in.error(in.peek(), "structured variable names are not supported");
    }
    expectEquals();
    return new Assignment.SystemVariable(scope, name.value(), value());
  }

  private void expectEquals() {
    if (!in.accept(TokenType.EQUALS) && !in.accept(TokenType.ASSIGN)) {
      throw in.error(in.peek(), "expected '='");
    }
  }

  private String charsetName() {
    Token t = in.peek();
    if (t.type() == TokenType.WORD
        || t.type() == TokenType.QUOTED_IDENTIFIER
        || t.type() == TokenType.STRING) {
      in.next();
      return t.type() == TokenType.WORD && t.value().equalsIgnoreCase("DEFAULT")
          ? "default"
          : t.value();
    }
    throw in.error(t, "expected a character set name");
  }

  private Expression value() {
    Token t = in.peek();
    Token after = in.peek(1);
    boolean alone =
        after.type() == TokenType.COMMA
            || after.type() == TokenType.SEMICOLON
            || after.type() == TokenType.END;
    if (t.type() == TokenType.WORD && after.type() != TokenType.LEFT_PAREN) {
      switch (t.value().toUpperCase(Locale.ROOT)) {
        case "DEFAULT":
          in.next();
          return new Expression.Default();
        case "NULL":
        case "TRUE":
        case "FALSE":
        case "CURRENT_USER":
          return expressions.expression();
        default:
          if (alone) {
            in.next();
            return new Expression.Word(t.value());
          }
          return expressions.expression();
      }
    }
    if (t.type() == TokenType.QUOTED_IDENTIFIER && alone) {
      in.next();
      return new Expression.Word(t.value());
    }
    return expressions.expression();
  }

  // ---- transactions ----

  private Statement begin() {
    in.next();
    if (in.peekWord("NOT")) {
      throw in.unsupported("BEGIN NOT ATOMIC");
    }
    in.acceptWord("WORK");
    return new Statement.Begin(false);
  }

  private Statement start() {
    in.next();
    if (!in.acceptWord("TRANSACTION")) {
      if (in.peek().type() == TokenType.WORD) {
        throw in.unsupported("START " + in.peekKeyword());
      }
      throw in.error(in.peek(), "expected TRANSACTION");
    }
    boolean readOnly = false;
    if (in.peek().type() == TokenType.WORD) {
      do {
        if (in.acceptWord("WITH")) {
          in.expectWord("CONSISTENT");
          in.expectWord("SNAPSHOT");
        } else {
          in.expectWord("READ");
          if (in.acceptWord("ONLY")) {
            readOnly = true;
          } else {
            in.expectWord("WRITE");
          }
        }
      } while (in.accept(TokenType.COMMA));
    }
    return new Statement.Begin(readOnly);
  }

  private Statement endTransaction() {
    boolean commit = in.next().isWord("COMMIT");
    in.acceptWord("WORK");
    if (!commit && in.peekWord("TO")) {
      throw in.unsupported("ROLLBACK TO SAVEPOINT");
    }
    boolean chain = false;
    if (in.acceptWord("AND")) {
      chain = !in.acceptWord("NO");
      in.expectWord("CHAIN");
    }
    boolean release = false;
    if (in.acceptWord("NO")) {
      in.expectWord("RELEASE");
    } else if (in.acceptWord("RELEASE")) {
      release = true;
    }
    return new Statement.EndTransaction(commit, chain, release);
  }

  // ---- KILL, DESCRIBE ----

  private Statement kill() {
    in.next();
    if (!in.acceptWord("HARD")) {
      in.acceptWord("SOFT");
    }
    boolean query = false;
    if (in.acceptWord("QUERY")) {
      query = true;
      if (in.peekWord("ID") && in.peek(1).type() != TokenType.END) {
        throw in.unsupported("KILL QUERY ID");
      }
    } else if (!in.acceptWord("CONNECTION") && in.peekWord("USER")) {
      throw in.unsupported("KILL USER");
    }
    return new Statement.Kill(query, expressions.expression());
  }

  private Statement describe() {
    in.next();
    String k = in.peekKeyword();
    if (k.equals("SELECT")
        || k.equals("FORMAT")
        || k.equals("ANALYZE")
        || k.equals("EXTENDED")
        || k.equals("PARTITIONS")
        || k.equals("INSERT")
        || k.equals("UPDATE")
        || k.equals("DELETE")
        || k.equals("REPLACE")
        || k.equals("FOR")
        || k.equals("TABLE")
        || k.equals("WITH")
        || in.peek().type() == TokenType.LEFT_PAREN) {
      throw in.unsupported("EXPLAIN");
    }
    TableName table = in.tableName();
    if (!in.atEnd() && in.peek().type() != TokenType.SEMICOLON) {
      expressions.expression(); // DESCRIBE t column: a column name or pattern
    }
    return new Statement.ShowColumns(false, table, new ShowFilter.All());
  }
}
