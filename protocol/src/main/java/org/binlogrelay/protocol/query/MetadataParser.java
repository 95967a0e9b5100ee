package org.binlogrelay.protocol.query;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The grammar of {@link MetadataStatement}s, a recursive-descent parser over {@link SqlParser}'s
 * tokens:
 *
 * <pre>
 *   show      := SHOW (DATABASES | SCHEMAS) [filter]
 *              | SHOW [EXTENDED] [FULL] TABLES [(FROM | IN) name] [filter]
 *              | SHOW TABLE STATUS [(FROM | IN) name] [filter]
 *              | SHOW [EXTENDED] [FULL] (COLUMNS | FIELDS) (FROM | IN) table [(FROM | IN) name] [filter]
 *              | SHOW [EXTENDED] (INDEX | INDEXES | KEYS) (FROM | IN) table [(FROM | IN) name] [WHERE condition]
 *              | SHOW CREATE TABLE table | SHOW CREATE (DATABASE | SCHEMA) [IF NOT EXISTS] name
 *   filter    := LIKE string | WHERE condition
 *   select    := SELECT [DISTINCT] ('*' | item {',' item}) FROM information_schema '.' name [[AS] alias]
 *                [WHERE condition] [ORDER BY operand [ASC | DESC] {',' ...}]
 *                [LIMIT n [OFFSET n] | LIMIT n ',' n]
 *   item      := operand [[AS] alias]
 *   condition := term {OR term};  term := factor {AND factor};  factor := NOT factor | '(' condition ')' | predicate
 *   predicate := operand (op operand | [NOT] LIKE operand [ESCAPE operand] | [NOT] IN '(' operand {',' operand} ')'
 *              | IS [NOT] NULL)
 *   operand   := [name '.'] name | string | ['-' | '+'] number | NULL | TRUE | FALSE | DATABASE() | SCHEMA()
 *              | (LOWER | UPPER | LCASE | UCASE) '(' operand ')' | COUNT '(' ('*' | [DISTINCT] operand) ')'
 *   table     := name ['.' name];  name := word | `quoted`
 * </pre>
 *
 * {@link #recognizes} decides, from the first tokens only, whether a statement is one of these (so
 * that anything else keeps {@link SqlParser}'s grammar and errors); once it is, any deviation is a
 * {@link SqlSyntaxError} at the first token that does not fit. Strings and names holding NUL are
 * refused. Not thread-safe; one instance per statement.
 */
final class MetadataParser {
  private static final int MAX_DEPTH = 32;
  private static final Set<String> SHOW_WORDS =
      Set.of("DATABASES", "SCHEMAS", "TABLES", "COLUMNS", "FIELDS", "INDEX", "INDEXES", "KEYS");

  /** Words that end a select item or the table, so they are not taken for an alias without AS. */
  private static final Set<String> NOT_ALIASES =
      Set.of(
          "FROM",
          "WHERE",
          "ORDER",
          "LIMIT",
          "GROUP",
          "HAVING",
          "UNION",
          "INTO",
          "FOR",
          "LOCK",
          "JOIN",
          "INNER",
          "LEFT",
          "RIGHT",
          "CROSS",
          "STRAIGHT_JOIN",
          "NATURAL",
          "USING",
          "ON",
          "WINDOW",
          "PROCEDURE",
          "OFFSET");

  private final String sql;
  private final List<Token> tokens;
  private int at;
  private int depth;

  MetadataParser(String sql, List<Token> tokens) {
    this.sql = sql;
    this.tokens = tokens;
  }

  /**
   * True if the tokens start a metadata statement: a {@code SHOW} of databases, tables, table
   * status, columns, indexes or a CREATE statement, or a {@code SELECT} whose first {@code FROM}
   * outside parentheses names one of {@link MetadataStatement#INFORMATION_SCHEMA_TABLES}.
   */
  static boolean recognizes(List<Token> tokens) {
    Token first = tokens.get(0);
    if (first.isWord("SHOW")) {
      Token second = word(tokens, 1);
      if (second == null) {
        return false;
      }
      String w = second.value().toUpperCase(Locale.ROOT);
      if (SHOW_WORDS.contains(w)) {
        return true;
      }
      Token third = word(tokens, 2);
      String next = third == null ? "" : third.value().toUpperCase(Locale.ROOT);
      switch (w) {
        case "FULL":
          return Set.of("TABLES", "COLUMNS", "FIELDS").contains(next);
        case "EXTENDED":
          return next.equals("FULL")
              || SHOW_WORDS.contains(next) && !next.equals("DATABASES") && !next.equals("SCHEMAS");
        case "TABLE":
          return next.equals("STATUS");
        case "CREATE":
          return Set.of("TABLE", "DATABASE", "SCHEMA").contains(next);
        default:
          return false;
      }
    }
    if (first.isWord("SELECT")) {
      int nesting = 0;
      for (int i = 1; i + 3 < tokens.size(); i++) {
        Token t = tokens.get(i);
        if (t.type() == TokenType.LEFT_PAREN) {
          nesting++;
        } else if (t.type() == TokenType.RIGHT_PAREN) {
          nesting--;
        } else if (nesting == 0 && t.isWord("FROM")) {
          return isName(tokens.get(i + 1))
              && tokens.get(i + 1).value().equalsIgnoreCase("information_schema")
              && tokens.get(i + 2).type() == TokenType.DOT
              && isName(tokens.get(i + 3))
              && MetadataStatement.INFORMATION_SCHEMA_TABLES.contains(
                  tokens.get(i + 3).value().toUpperCase(Locale.ROOT));
        } else if (t.type() == TokenType.END || t.type() == TokenType.SEMICOLON) {
          return false;
        }
      }
    }
    return false;
  }

  private static Token word(List<Token> tokens, int index) {
    return index < tokens.size() && tokens.get(index).type() == TokenType.WORD
        ? tokens.get(index)
        : null;
  }

  private static boolean isName(Token t) {
    return t.type() == TokenType.WORD || t.type() == TokenType.QUOTED_IDENTIFIER;
  }

  /** Parses the whole statement (an optional ';' and the end included). */
  MetadataStatement statement() {
    MetadataStatement statement = peekWord("SHOW") ? show() : select();
    accept(TokenType.SEMICOLON);
    if (peek().type() != TokenType.END) {
      throw error(peek(), "unexpected text after the statement");
    }
    return statement;
  }

  // ---- SHOW ----

  private MetadataStatement show() {
    expectWord("SHOW");
    if (acceptWord("DATABASES") || acceptWord("SCHEMAS")) {
      return new MetadataStatement.ShowDatabases(filter(true));
    }
    if (acceptWord("CREATE")) {
      if (acceptWord("TABLE")) {
        return new MetadataStatement.ShowCreateTable(table());
      }
      if (!acceptWord("DATABASE")) {
        expectWord("SCHEMA");
      }
      boolean ifNotExists = false;
      if (acceptWord("IF")) {
        expectWord("NOT");
        expectWord("EXISTS");
        ifNotExists = true;
      }
      return new MetadataStatement.ShowCreateDatabase(ifNotExists, name());
    }
    if (acceptWord("TABLE")) {
      expectWord("STATUS");
      return new MetadataStatement.ShowTableStatus(fromDatabase(), filter(true));
    }
    boolean extended = acceptWord("EXTENDED");
    if (!peekWord("FULL") && (acceptWord("INDEX") || acceptWord("INDEXES") || acceptWord("KEYS"))) {
      MetadataStatement.TableName table = tableWithDatabase();
      return new MetadataStatement.ShowIndex(extended, table, filter(false));
    }
    boolean full = acceptWord("FULL");
    if (acceptWord("TABLES")) {
      return new MetadataStatement.ShowTables(extended, full, fromDatabase(), filter(true));
    }
    if (acceptWord("COLUMNS") || acceptWord("FIELDS")) {
      MetadataStatement.TableName table = tableWithDatabase();
      return new MetadataStatement.ShowColumns(extended, full, table, filter(true));
    }
    throw error(peek(), "unsupported SHOW statement");
  }

  /**
   * {@code (FROM | IN) table [(FROM | IN) database]}: a database after the table replaces the
   * table's own.
   */
  private MetadataStatement.TableName tableWithDatabase() {
    if (!acceptWord("FROM")) {
      expectWord("IN");
    }
    MetadataStatement.TableName table = table();
    String database = fromDatabase();
    return database == null ? table : new MetadataStatement.TableName(database, table.table());
  }

  /** {@code [(FROM | IN) name]}; null if absent. */
  private String fromDatabase() {
    if (acceptWord("FROM") || acceptWord("IN")) {
      return name();
    }
    return null;
  }

  private MetadataStatement.Filter filter(boolean likeAllowed) {
    if (likeAllowed && acceptWord("LIKE")) {
      return new MetadataStatement.Like(text(expect(TokenType.STRING, "a pattern string")));
    }
    if (acceptWord("WHERE")) {
      return new MetadataStatement.Where(condition());
    }
    return new MetadataStatement.All();
  }

  // ---- SELECT ... FROM information_schema.t ----

  private MetadataStatement select() {
    expectWord("SELECT");
    boolean distinct = acceptWord("DISTINCT");
    List<MetadataStatement.Projection> projections = new ArrayList<>();
    if (!accept(TokenType.STAR)) {
      do {
        projections.add(projection());
      } while (accept(TokenType.COMMA));
    }
    expectWord("FROM");
    Token schema = peek();
    if (!isName(schema) || !schema.value().equalsIgnoreCase("information_schema")) {
      throw error(schema, "expected information_schema");
    }
    at++;
    expect(TokenType.DOT, "'.'");
    Token table = peek();
    if (!isName(table)
        || !MetadataStatement.INFORMATION_SCHEMA_TABLES.contains(
            table.value().toUpperCase(Locale.ROOT))) {
      throw error(table, "expected one of " + MetadataStatement.INFORMATION_SCHEMA_TABLES);
    }
    at++;
    String alias = null;
    if (acceptWord("AS")) {
      alias = name();
    } else if (isAlias(peek())) {
      alias = name();
    }
    Condition where = acceptWord("WHERE") ? condition() : null;
    List<MetadataStatement.Order> orderBy = new ArrayList<>();
    if (acceptWord("ORDER")) {
      expectWord("BY");
      do {
        Operand key = operand();
        boolean descending = acceptWord("DESC");
        if (!descending) {
          acceptWord("ASC");
        }
        orderBy.add(new MetadataStatement.Order(key, descending));
      } while (accept(TokenType.COMMA));
    }
    long limit = -1;
    long offset = 0;
    if (acceptWord("LIMIT")) {
      limit = count();
      if (accept(TokenType.COMMA)) {
        offset = limit;
        limit = count();
      } else if (acceptWord("OFFSET")) {
        offset = count();
      }
    }
    return new MetadataStatement.InformationSchemaSelect(
        distinct, projections, table.value(), alias, where, orderBy, limit, offset);
  }

  private MetadataStatement.Projection projection() {
    Token start = peek();
    Operand operand = operand();
    String written = sql.substring(start.start(), tokens.get(at - 1).end());
    String alias = null;
    if (acceptWord("AS")) {
      alias = aliasName();
    } else if (isAlias(peek()) || peek().type() == TokenType.STRING) {
      alias = aliasName();
    }
    if (alias == null && !(operand instanceof Operand.Column)) {
      alias = written;
    }
    return new MetadataStatement.Projection(operand, alias);
  }

  private boolean isAlias(Token t) {
    return t.type() == TokenType.QUOTED_IDENTIFIER
        || t.type() == TokenType.WORD && !NOT_ALIASES.contains(t.value().toUpperCase(Locale.ROOT));
  }

  private String aliasName() {
    Token t = peek();
    if (isName(t) || t.type() == TokenType.STRING) {
      at++;
      return checked(t);
    }
    throw error(t, "expected an alias");
  }

  private long count() {
    Token n = expect(TokenType.NUMBER, "a row count");
    try {
      long value = Long.parseLong(n.value());
      if (value >= 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // falls through to the error
    }
    throw error(n, "expected a row count");
  }

  // ---- conditions ----

  private Condition condition() {
    if (++depth > MAX_DEPTH) {
      throw error(peek(), "condition nested more than " + MAX_DEPTH + " deep");
    }
    try {
      List<Condition> terms = new ArrayList<>();
      terms.add(conjunction());
      while (acceptWord("OR")) {
        terms.add(conjunction());
      }
      return terms.size() == 1 ? terms.get(0) : new Condition.Or(terms);
    } finally {
      depth--;
    }
  }

  private Condition conjunction() {
    List<Condition> terms = new ArrayList<>();
    terms.add(factor());
    while (acceptWord("AND")) {
      terms.add(factor());
    }
    return terms.size() == 1 ? terms.get(0) : new Condition.And(terms);
  }

  private Condition factor() {
    if (acceptWord("NOT")) {
      if (++depth > MAX_DEPTH) {
        throw error(peek(), "condition nested more than " + MAX_DEPTH + " deep");
      }
      try {
        return new Condition.Not(factor());
      } finally {
        depth--;
      }
    }
    if (peek().type() == TokenType.LEFT_PAREN) {
      at++;
      Condition inner = condition();
      expect(TokenType.RIGHT_PAREN, "')'");
      return inner;
    }
    return predicate();
  }

  private Condition predicate() {
    Operand left = operand();
    if (acceptWord("IS")) {
      boolean negated = acceptWord("NOT");
      expectWord("NULL");
      return new Condition.IsNull(left, negated);
    }
    boolean negated = acceptWord("NOT");
    if (acceptWord("LIKE")) {
      Operand pattern = operand();
      Operand escape = acceptWord("ESCAPE") ? operand() : null;
      return new Condition.Like(left, negated, pattern, escape);
    }
    if (acceptWord("IN")) {
      expect(TokenType.LEFT_PAREN, "'('");
      List<Operand> values = new ArrayList<>();
      do {
        values.add(operand());
      } while (accept(TokenType.COMMA));
      expect(TokenType.RIGHT_PAREN, "')'");
      return new Condition.In(left, negated, values);
    }
    if (negated) {
      throw error(peek(), "expected LIKE or IN after NOT");
    }
    String operator = operator();
    return new Condition.Comparison(left, operator, operand());
  }

  /**
   * A comparison operator: adjacent tokens of {@code < > ! =} joined, so that it reads the same
   * whether the lexer gives {@code <=} as one symbol or as two.
   */
  private String operator() {
    Token t = peek();
    StringBuilder op = new StringBuilder();
    int end = t.start();
    while (isOperatorPart(peek())
        && peek().start() == end
        && op.length() + peek().value().length() <= 3) {
      op.append(peek().value());
      end = peek().end();
      at++;
    }
    if (!Condition.OPERATORS.contains(op.toString())) {
      throw error(t, "expected a comparison operator");
    }
    return op.toString();
  }

  private static boolean isOperatorPart(Token t) {
    return t.type() == TokenType.EQUALS
        || t.type() == TokenType.SYMBOL
            && !t.value().isEmpty()
            && t.value().chars().allMatch(c -> "<>!=".indexOf(c) >= 0);
  }

  // ---- operands ----

  private Operand operand() {
    Token t = peek();
    switch (t.type()) {
      case STRING:
        at++;
        return new Operand.Text(text(t));
      case NUMBER:
        at++;
        return numeral("", t);
      case MINUS:
      case PLUS:
        at++;
        return numeral(
            t.type() == TokenType.MINUS ? "-" : "", expect(TokenType.NUMBER, "a number"));
      case QUOTED_IDENTIFIER:
        return column();
      case WORD:
        return wordOperand(t);
      default:
        throw error(t, "expected a column, a string or a number");
    }
  }

  private Operand wordOperand(Token t) {
    String upper = t.value().toUpperCase(Locale.ROOT);
    if (tokens.get(at + 1).type() == TokenType.LEFT_PAREN) {
      at += 2;
      Operand call;
      if (upper.equals("DATABASE") || upper.equals("SCHEMA")) {
        call = new Operand.CurrentDatabase();
      } else if (upper.equals("COUNT")) {
        if (accept(TokenType.STAR)) {
          call = new Operand.Count(false, null);
        } else {
          boolean distinct = acceptWord("DISTINCT");
          call = new Operand.Count(distinct, nested());
        }
      } else if (Operand.ONE_ARGUMENT_FUNCTIONS.contains(upper)) {
        call = new Operand.Call(upper, nested());
      } else {
        throw error(t, "function " + t.value() + " is not one the relay forwards");
      }
      expect(TokenType.RIGHT_PAREN, "')'");
      return call;
    }
    switch (upper) {
      case "NULL":
      case "TRUE":
      case "FALSE":
        at++;
        return new Operand.Keyword(upper);
      default:
        return column();
    }
  }

  private Operand nested() {
    if (++depth > MAX_DEPTH) {
      throw error(peek(), "expression nested more than " + MAX_DEPTH + " deep");
    }
    try {
      return operand();
    } finally {
      depth--;
    }
  }

  private Operand numeral(String sign, Token number) {
    try {
      return new Operand.Numeral(sign + number.value());
    } catch (IllegalArgumentException e) {
      throw error(number, "not a number");
    }
  }

  private Operand column() {
    String first = name();
    if (accept(TokenType.DOT)) {
      return new Operand.Column(first, name());
    }
    return new Operand.Column(null, first);
  }

  // ---- names ----

  private MetadataStatement.TableName table() {
    String first = name();
    if (accept(TokenType.DOT)) {
      return new MetadataStatement.TableName(first, name());
    }
    return new MetadataStatement.TableName(null, first);
  }

  private String name() {
    Token t = peek();
    if (!isName(t) || t.value().isEmpty()) {
      throw error(t, "expected a name");
    }
    at++;
    return checked(t);
  }

  private String text(Token t) {
    return checked(t);
  }

  /** The token's value; a NUL in it cannot be forwarded. */
  private String checked(Token t) {
    if (t.value().indexOf('\0') >= 0) {
      throw error(t, "a NUL character in a name or string");
    }
    return t.value();
  }

  // ---- tokens ----

  private Token peek() {
    return tokens.get(at);
  }

  private boolean peekWord(String keyword) {
    return peek().isWord(keyword);
  }

  private boolean acceptWord(String keyword) {
    if (peekWord(keyword)) {
      at++;
      return true;
    }
    return false;
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
    if (!acceptWord(keyword)) {
      throw error(peek(), "expected " + keyword);
    }
  }

  private SqlSyntaxError error(Token t, String reason) {
    return new SqlSyntaxError(reason, sql.substring(Math.min(t.start(), sql.length())), t.line());
  }
}
