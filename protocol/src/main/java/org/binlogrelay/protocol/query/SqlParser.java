package org.binlogrelay.protocol.query;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A recursive-descent parser for the statements a binlog server answers (see {@link Statement}):
 *
 * <pre>
 *   statement  := (select | show | set) [';']
 *   select     := SELECT item {',' item} [FROM DUAL] [LIMIT n]
 *   item       := expr [[AS] alias]
 *   expr       := ['-'|'+'] number | string | NULL | TRUE | FALSE | '@'name | sysvar
 *               | word '(' [expr {',' expr}] ')' | CURRENT_USER | '(' expr ')'
 *   sysvar     := '@@' [(GLOBAL|SESSION|LOCAL) '.'] name
 *   show       := SHOW [GLOBAL|SESSION|LOCAL] VARIABLES [LIKE string | WHERE Variable_name (= | LIKE) string]
 *               | SHOW (BINARY|MASTER) LOGS | SHOW (BINARY LOG|MASTER|BINLOG) STATUS
 *               | SHOW REPLICAS | SHOW (SLAVE|REPLICA) HOSTS | SHOW WARNINGS [LIMIT n]
 *   set        := SET assignment {',' assignment}
 *   assignment := '@'name ('='|':=') value | NAMES (charset|DEFAULT) [COLLATE name]
 *               | CHARACTER SET charset | [GLOBAL|SESSION|LOCAL] name '=' value | sysvar '=' value
 *   value      := expr | word | DEFAULT
 * </pre>
 *
 * and the statements that read table schemas ({@link MetadataStatement}, grammar in {@link MetadataParser}),
 * chosen by their first tokens. Keywords are case-insensitive. Anything else throws {@link SqlSyntaxError}
 * pointing at the first token that does not fit, as MySQL's ER_PARSE_ERROR does. Not thread-safe; one instance
 * per statement.
 */
public final class SqlParser {
  /** Statements longer than this are refused before lexing. */
  public static final int MAX_STATEMENT_CHARS = 1 << 20;
  private static final int MAX_TOKENS = 10_000;
  private static final int MAX_ARGUMENTS = 16;
  /** Nesting of parentheses accepted, so recursion stays shallow. */
  private static final int MAX_DEPTH = 32;
  private static final Set<String> NOT_ALIASES = Set.of(
      "FROM", "LIMIT", "WHERE", "INTO", "UNION", "ORDER", "GROUP", "HAVING", "FOR", "LOCK", "WINDOW");

  private final String sql;
  private final List<Token> tokens;
  private int at;
  private int depth;

  private SqlParser(String sql, List<Token> tokens) {
    this.sql = sql;
    this.tokens = tokens;
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
      throw new SqlSyntaxError("statement of " + sql.length() + " characters", sql.substring(0, 80), 1);
    }
    List<Token> tokens = new SqlLexer(sql, serverVersion, mariadb, MAX_TOKENS).tokenize();
    if (MetadataParser.recognizes(tokens)) {
      return new Statement.Metadata(new MetadataParser(sql, tokens).statement());
    }
    return new SqlParser(sql, tokens).statement();
  }

  /** The version number MySQL compares executable comments with: "8.4.0-x" is 80400, "10.11.6" is 101106. */
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
    Token first = peek();
    Statement statement;
    if (first.isWord("SELECT")) {
      statement = select();
    } else if (first.isWord("SHOW")) {
      statement = show();
    } else if (first.isWord("SET")) {
      statement = set();
    } else {
      throw error(first, "unsupported statement");
    }
    if (peek().type() == TokenType.SEMICOLON) {
      at++;
    }
    if (peek().type() != TokenType.END) {
      throw error(peek(), "unexpected text after the statement");
    }
    return statement;
  }

  // ---- SELECT ----

  private Statement select() {
    at++;
    List<SelectItem> items = new ArrayList<>();
    do {
      items.add(selectItem());
    } while (accept(TokenType.COMMA));
    if (peekWord("FROM")) {
      at++;
      expectWord("DUAL");
    }
    long limit = -1;
    if (peekWord("LIMIT")) {
      at++;
      Token n = expect(TokenType.NUMBER, "a row count");
      limit = parseCount(n);
    }
    return new Statement.Select(items, limit);
  }

  private SelectItem selectItem() {
    Token start = peek();
    Expression expression = expression();
    int end = tokens.get(at - 1).end();
    String name = expression instanceof Expression.Literal l && l.kind() == Expression.Literal.Kind.STRING
        ? l.text() : sql.substring(start.start(), end);
    Token next = peek();
    if (next.isWord("AS")) {
      at++;
      return new SelectItem(expression, alias());
    }
    if ((next.type() == TokenType.WORD && !NOT_ALIASES.contains(next.value().toUpperCase(Locale.ROOT)))
        || next.type() == TokenType.QUOTED_IDENTIFIER || next.type() == TokenType.STRING) {
      return new SelectItem(expression, alias());
    }
    return new SelectItem(expression, name);
  }

  private String alias() {
    Token t = peek();
    if (t.type() == TokenType.WORD || t.type() == TokenType.QUOTED_IDENTIFIER || t.type() == TokenType.STRING) {
      at++;
      return t.value();
    }
    throw error(t, "expected an alias");
  }

  private Expression expression() {
    if (++depth > MAX_DEPTH) {
      throw error(peek(), "expression nested more than " + MAX_DEPTH + " deep");
    }
    try {
      return primary();
    } finally {
      depth--;
    }
  }

  private Expression primary() {
    Token t = peek();
    switch (t.type()) {
      case NUMBER:
        at++;
        return number(t.value());
      case MINUS:
      case PLUS:
        at++;
        Token n = expect(TokenType.NUMBER, "a number");
        return number((t.type() == TokenType.MINUS ? "-" : "") + n.value());
      case STRING:
        at++;
        return new Expression.Literal(Expression.Literal.Kind.STRING, t.value());
      case USER_VARIABLE:
        at++;
        if (t.value().isEmpty()) {
          throw error(t, "expected a user variable name after @");
        }
        return new Expression.UserVariable(t.value());
      case AT_AT:
        return systemVariable();
      case LEFT_PAREN:
        at++;
        Expression inner = expression();
        expect(TokenType.RIGHT_PAREN, "')'");
        return inner;
      case WORD:
        return wordExpression(t);
      default:
        throw error(t, "expected an expression");
    }
  }

  private Expression wordExpression(Token t) {
    String upper = t.value().toUpperCase(Locale.ROOT);
    if (tokens.get(at + 1).type() == TokenType.LEFT_PAREN) {
      at += 2;
      List<Expression> arguments = new ArrayList<>();
      if (!accept(TokenType.RIGHT_PAREN)) {
        do {
          if (arguments.size() == MAX_ARGUMENTS) {
            throw error(peek(), "more than " + MAX_ARGUMENTS + " function arguments");
          }
          arguments.add(expression());
        } while (accept(TokenType.COMMA));
        expect(TokenType.RIGHT_PAREN, "')'");
      }
      return new Expression.FunctionCall(upper, arguments);
    }
    at++;
    switch (upper) {
      case "NULL":
        return Expression.Literal.nullValue();
      case "TRUE":
        return new Expression.Literal(Expression.Literal.Kind.INTEGER, "1");
      case "FALSE":
        return new Expression.Literal(Expression.Literal.Kind.INTEGER, "0");
      case "CURRENT_USER":
        return new Expression.FunctionCall(upper);
      default:
        at--;
        throw error(t, "unknown column or expression");
    }
  }

  private Expression.SystemVariable systemVariable() {
    expect(TokenType.AT_AT, "'@@'");
    VariableScope scope = VariableScope.DEFAULT;
    Token name = variableName();
    if (peek().type() == TokenType.DOT) {
      VariableScope prefix = scopeWord(name);
      if (prefix == null) {
        throw error(name, "expected GLOBAL, SESSION or LOCAL before '.'");
      }
      at++;
      scope = prefix;
      name = variableName();
    }
    return new Expression.SystemVariable(scope, name.value());
  }

  private Token variableName() {
    Token t = peek();
    if (t.type() == TokenType.WORD || t.type() == TokenType.QUOTED_IDENTIFIER) {
      at++;
      return t;
    }
    throw error(t, "expected a variable name");
  }

  private static VariableScope scopeWord(Token t) {
    if (t.type() != TokenType.WORD) {
      return null;
    }
    switch (t.value().toUpperCase(Locale.ROOT)) {
      case "GLOBAL":
        return VariableScope.GLOBAL;
      case "SESSION":
      case "LOCAL":
        return VariableScope.SESSION;
      default:
        return null;
    }
  }

  private static Expression number(String text) {
    boolean decimal = text.indexOf('.') >= 0 || text.indexOf('e') >= 0 || text.indexOf('E') >= 0;
    return new Expression.Literal(decimal ? Expression.Literal.Kind.DECIMAL : Expression.Literal.Kind.INTEGER, text);
  }

  // ---- SHOW ----

  private Statement show() {
    at++;
    Token t = peek();
    VariableScope scope = scopeWord(t);
    if (scope != null) {
      at++;
      expectWord("VARIABLES");
      return new Statement.ShowVariables(scope, variableFilter());
    }
    String word = t.type() == TokenType.WORD ? t.value().toUpperCase(Locale.ROOT) : "";
    int from = t.start();
    switch (word) {
      case "VARIABLES":
        at++;
        return new Statement.ShowVariables(VariableScope.DEFAULT, variableFilter());
      case "BINARY":
        at++;
        if (peekWord("LOGS")) {
          at++;
          return new Statement.ShowBinaryLogs("BINARY LOGS", from);
        }
        expectWord("LOG");
        expectWord("STATUS");
        return new Statement.ShowBinaryLogStatus("BINARY LOG STATUS", from);
      case "MASTER":
        at++;
        if (peekWord("LOGS")) {
          at++;
          return new Statement.ShowBinaryLogs("MASTER LOGS", from);
        }
        expectWord("STATUS");
        return new Statement.ShowBinaryLogStatus("MASTER STATUS", from);
      case "BINLOG":
        at++;
        expectWord("STATUS");
        return new Statement.ShowBinaryLogStatus("BINLOG STATUS", from);
      case "REPLICAS":
        at++;
        return new Statement.ShowReplicas("REPLICAS", from);
      case "SLAVE":
      case "REPLICA":
        at++;
        expectWord("HOSTS");
        return new Statement.ShowReplicas(word + " HOSTS", from);
      case "WARNINGS":
        at++;
        if (peekWord("LIMIT")) {
          at++;
          expect(TokenType.NUMBER, "a row count");
        }
        return new Statement.ShowWarnings();
      default:
        throw error(t, "unsupported SHOW statement");
    }
  }

  private VariableFilter variableFilter() {
    if (peekWord("LIKE")) {
      at++;
      return new VariableFilter.Like(LikePattern.compile(expect(TokenType.STRING, "a pattern").value()));
    }
    if (peekWord("WHERE")) {
      at++;
      Token column = peek();
      if (!(column.type() == TokenType.WORD || column.type() == TokenType.QUOTED_IDENTIFIER)
          || !column.value().equalsIgnoreCase("Variable_name")) {
        throw error(column, "only WHERE Variable_name = '...' is supported");
      }
      at++;
      if (peekWord("LIKE")) {
        at++;
        return new VariableFilter.Like(LikePattern.compile(expect(TokenType.STRING, "a pattern").value()));
      }
      expect(TokenType.EQUALS, "'='");
      return new VariableFilter.NameEquals(expect(TokenType.STRING, "a variable name").value());
    }
    return new VariableFilter.All();
  }

  // ---- SET ----

  private Statement set() {
    at++;
    List<Assignment> assignments = new ArrayList<>();
    do {
      assignments.add(assignment());
    } while (accept(TokenType.COMMA));
    return new Statement.Set(assignments);
  }

  private Assignment assignment() {
    Token t = peek();
    if (t.type() == TokenType.USER_VARIABLE) {
      at++;
      if (t.value().isEmpty()) {
        throw error(t, "expected a user variable name after @");
      }
      if (!accept(TokenType.EQUALS) && !accept(TokenType.ASSIGN)) {
        throw error(peek(), "expected '=' or ':='");
      }
      return new Assignment.UserVariable(t.value(), value());
    }
    if (t.type() == TokenType.AT_AT) {
      Expression.SystemVariable variable = systemVariable();
      expectEquals();
      return new Assignment.SystemVariable(variable.scope(), variable.name(), value());
    }
    if (t.isWord("NAMES")) {
      at++;
      String charset = charsetName();
      String collation = null;
      if (peekWord("COLLATE")) {
        at++;
        collation = charsetName();
      }
      return new Assignment.Names(charset, collation);
    }
    if ((t.isWord("CHARACTER") && tokens.get(at + 1).isWord("SET")) || t.isWord("CHARSET")) {
      at += t.isWord("CHARSET") ? 1 : 2;
      return new Assignment.Names(charsetName(), null);
    }
    VariableScope scope = VariableScope.DEFAULT;
    VariableScope prefix = scopeWord(t);
    if (prefix != null && tokens.get(at + 1).type() != TokenType.EQUALS) {
      at++;
      scope = prefix;
    }
    Token name = variableName();
    if (peek().type() == TokenType.DOT && scopeWord(name) == null) {
      throw error(peek(), "structured variable names are not supported");
    }
    expectEquals();
    return new Assignment.SystemVariable(scope, name.value(), value());
  }

  private void expectEquals() {
    if (!accept(TokenType.EQUALS) && !accept(TokenType.ASSIGN)) {
      throw error(peek(), "expected '='");
    }
  }

  private String charsetName() {
    Token t = peek();
    if (t.type() == TokenType.WORD || t.type() == TokenType.QUOTED_IDENTIFIER || t.type() == TokenType.STRING) {
      at++;
      return t.type() == TokenType.WORD && t.value().equalsIgnoreCase("DEFAULT") ? "default" : t.value();
    }
    throw error(t, "expected a character set name");
  }

  private Expression value() {
    Token t = peek();
    if (t.type() == TokenType.WORD && tokens.get(at + 1).type() != TokenType.LEFT_PAREN) {
      String upper = t.value().toUpperCase(Locale.ROOT);
      switch (upper) {
        case "DEFAULT":
          at++;
          return new Expression.Default();
        case "NULL":
        case "TRUE":
        case "FALSE":
        case "CURRENT_USER":
          return expression();
        default:
          at++;
          return new Expression.Word(t.value());
      }
    }
    if (t.type() == TokenType.QUOTED_IDENTIFIER) {
      at++;
      return new Expression.Word(t.value());
    }
    return expression();
  }

  // ---- helpers ----

  private long parseCount(Token n) {
    try {
      long v = Long.parseLong(n.value());
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw error(n, "expected a row count");
  }

  private Token peek() {
    return tokens.get(at);
  }

  private boolean peekWord(String keyword) {
    return peek().isWord(keyword);
  }

  private boolean accept(TokenType type) {
    if (peek().type() == type) {
      at++;
      return true;
    }
    return false;
  }

  private Token expect(TokenType type, String what) {
    Token t = peek();
    if (t.type() != type) {
      throw error(t, "expected " + what);
    }
    at++;
    return t;
  }

  private void expectWord(String keyword) {
    if (!peekWord(keyword)) {
      throw error(peek(), "expected " + keyword);
    }
    at++;
  }

  private SqlSyntaxError error(Token t, String reason) {
    return new SqlSyntaxError(reason, sql.substring(Math.min(t.start(), sql.length())), t.line());
  }
}
