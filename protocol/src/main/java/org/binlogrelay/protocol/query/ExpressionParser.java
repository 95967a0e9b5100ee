package org.binlogrelay.protocol.query;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Parses expressions with MySQL's operator precedence, loosest first:
 *
 * <pre>
 *   expr       := xor {(OR | '||') xor}
 *   xor        := and {XOR and}
 *   and        := not {(AND | '&&') not}
 *   not        := NOT not | predicate
 *   predicate  := sum [compare sum | [NOT] IN '(' expr {',' expr} ')' | [NOT] LIKE sum
 *                 | [NOT] BETWEEN sum AND sum | IS [NOT] NULL]
 *   compare    := '=' | '<=>' | '<>' | '!=' | '<' | '<=' | '>' | '>='
 *   sum        := product {('+' | '-') product}
 *   product    := unary {('*' | '/' | DIV | MOD | '%') unary}
 *   unary      := ('-' | '+' | '!') unary | primary
 *   primary    := number | string | NULL | TRUE | FALSE | '@'name | sysvar | word '(' [args] ')'
 *               | column | CURRENT_USER | '(' expr ')'
 *   column     := name ['.' name ['.' name]] | [name '.'] '*' (select lists only)
 * </pre>
 *
 * Subqueries, {@code CASE}, {@code INTERVAL}, {@code EXISTS}, {@code REGEXP} and {@code LIKE ...
 * ESCAPE} are valid SQL this server does not evaluate: {@link TokenStream.UnsupportedSyntax}. Hard
 * limits: {@link #MAX_ARGUMENTS} function arguments, nesting {@link #MAX_DEPTH} deep. Not
 * thread-safe.
 */
final class ExpressionParser {
  static final int MAX_ARGUMENTS = 16;

  /** Nesting of parentheses and operators accepted, so recursion stays shallow. */
  static final int MAX_DEPTH = 32;

  /** In-list entries accepted. */
  static final int MAX_LIST = 1000;

  /** Words that end an expression or cannot start one: never column names. */
  static final Set<String> RESERVED =
      Set.of(
          "SELECT",
          "FROM",
          "WHERE",
          "AND",
          "OR",
          "NOT",
          "XOR",
          "IN",
          "IS",
          "LIKE",
          "AS",
          "ORDER",
          "BY",
          "GROUP",
          "HAVING",
          "LIMIT",
          "UNION",
          "SET",
          "SHOW",
          "INTO",
          "FOR",
          "LOCK",
          "WINDOW",
          "BETWEEN",
          "REGEXP",
          "RLIKE",
          "DIV",
          "MOD",
          "ESCAPE",
          "ASC",
          "DESC",
          "OFFSET",
          "JOIN",
          "ON",
          "USING",
          "INNER",
          "LEFT",
          "RIGHT",
          "CROSS",
          "NATURAL",
          "STRAIGHT_JOIN",
          "DISTINCT",
          "ALL",
          "WHEN",
          "THEN",
          "ELSE",
          "END");

  private final TokenStream in;
  private int depth;

  ExpressionParser(TokenStream in) {
    this.in = in;
  }

  Expression expression() {
    enter();
    try {
      Expression left = xor();
      while (in.acceptWord("OR") || in.acceptSymbol("||")) {
        left = new Expression.Binary(Expression.Operator.OR, left, xor());
      }
      return left;
    } finally {
      depth--;
    }
  }

  private Expression xor() {
    Expression left = and();
    while (in.acceptWord("XOR")) {
      left = new Expression.Binary(Expression.Operator.XOR, left, and());
    }
    return left;
  }

  private Expression and() {
    Expression left = not();
    while (in.acceptWord("AND") || in.acceptSymbol("&&")) {
      left = new Expression.Binary(Expression.Operator.AND, left, not());
    }
    return left;
  }

  private Expression not() {
    if (in.acceptWord("NOT")) {
      enter();
      try {
        return new Expression.Unary(Expression.Operator.NOT, not());
      } finally {
        depth--;
      }
    }
    return predicate();
  }

  private Expression predicate() {
    Expression left = sum();
    while (true) {
      Expression.Operator compare = comparison();
      if (compare != null) {
        left = new Expression.Binary(compare, left, sum());
        continue;
      }
      if (in.acceptWord("IS")) {
        boolean negated = in.acceptWord("NOT");
        if (in.acceptWord("NULL")) {
          left = new Expression.IsNull(left, negated);
          continue;
        }
        if (in.peekWord("TRUE") || in.peekWord("FALSE") || in.peekWord("UNKNOWN")) {
          throw in.unsupported("IS " + in.peekKeyword());
        }
        throw in.error(in.peek(), "expected NULL");
      }
      boolean negated =
          in.peekWord("NOT")
              && (in.peek(1).isWord("IN")
                  || in.peek(1).isWord("LIKE")
                  || in.peek(1).isWord("BETWEEN")
                  || in.peek(1).isWord("REGEXP")
                  || in.peek(1).isWord("RLIKE"));
      if (negated) {
        in.next();
      }
      if (in.acceptWord("IN")) {
        left = new Expression.In(left, list(), negated);
      } else if (in.acceptWord("LIKE")) {
        Expression pattern = sum();
        if (in.peekWord("ESCAPE")) {
          throw in.unsupported("LIKE ... ESCAPE");
        }
        left = new Expression.Like(left, pattern, negated);
      } else if (in.acceptWord("BETWEEN")) {
        Expression low = sum();
        in.expectWord("AND");
        Expression high = sum();
        Expression between =
            new Expression.Binary(
                Expression.Operator.AND,
                new Expression.Binary(Expression.Operator.GREATER_OR_EQUAL, left, low),
                new Expression.Binary(Expression.Operator.LESS_OR_EQUAL, left, high));
        left = negated ? new Expression.Unary(Expression.Operator.NOT, between) : between;
      } else if (in.peekWord("REGEXP") || in.peekWord("RLIKE") || in.peekWord("SOUNDS")) {
        throw in.unsupported(in.peekKeyword());
      } else if (negated) {
        throw in.error(in.peek(), "expected IN, LIKE or BETWEEN");
      } else {
        return left;
      }
    }
  }

  private Expression.Operator comparison() {
    Token t = in.peek();
    Expression.Operator op = null;
    if (t.type() == TokenType.EQUALS) {
      op = Expression.Operator.EQUAL;
    } else if (t.type() == TokenType.SYMBOL) {
      switch (t.value()) {
        case "<=>":
          op = Expression.Operator.NULL_SAFE_EQUAL;
          break;
        case "<>":
        case "!=":
          op = Expression.Operator.NOT_EQUAL;
          break;
        case "<":
          op = Expression.Operator.LESS;
          break;
        case "<=":
          op = Expression.Operator.LESS_OR_EQUAL;
          break;
        case ">":
          op = Expression.Operator.GREATER;
          break;
        case ">=":
          op = Expression.Operator.GREATER_OR_EQUAL;
          break;
        default:
          return null;
      }
    }
    if (op != null) {
      in.next();
      if (in.peekWord("ANY") || in.peekWord("ALL") || in.peekWord("SOME")) {
        throw in.unsupported("subquery");
      }
    }
    return op;
  }

  private List<Expression> list() {
    in.expect(TokenType.LEFT_PAREN, "'('");
    if (in.peekWord("SELECT")) {
      throw in.unsupported("subquery");
    }
    List<Expression> values = new ArrayList<>();
    do {
      if (values.size() == MAX_LIST) {
        throw in.error(in.peek(), "more than " + MAX_LIST + " values in a list");
      }
      values.add(expression());
    } while (in.accept(TokenType.COMMA));
    in.expect(TokenType.RIGHT_PAREN, "')'");
    return values;
  }

  private Expression sum() {
    Expression left = product();
    while (true) {
      if (in.accept(TokenType.PLUS)) {
        left = new Expression.Binary(Expression.Operator.PLUS, left, product());
      } else if (in.accept(TokenType.MINUS)) {
        left = new Expression.Binary(Expression.Operator.MINUS, left, product());
      } else {
        return left;
      }
    }
  }

  private Expression product() {
    Expression left = unary();
    while (true) {
      Expression.Operator op;
      if (in.peek().type() == TokenType.STAR) {
        op = Expression.Operator.TIMES;
      } else if (in.peekSymbol("/")) {
        op = Expression.Operator.DIVIDE;
      } else if (in.peekWord("DIV")) {
        op = Expression.Operator.INTEGER_DIVIDE;
      } else if (in.peekWord("MOD") || in.peekSymbol("%")) {
        op = Expression.Operator.MODULO;
      } else {
        return left;
      }
      in.next();
      left = new Expression.Binary(op, left, unary());
    }
  }

  private Expression unary() {
    Token t = in.peek();
    if (t.type() == TokenType.MINUS || t.type() == TokenType.PLUS || in.peekSymbol("!")) {
      in.next();
      enter();
      try {
        if (t.type() != TokenType.MINUS && t.type() != TokenType.PLUS) {
          return new Expression.Unary(Expression.Operator.NOT, unary());
        }
        Token n = in.peek();
        if (n.type() == TokenType.NUMBER) {
          in.next();
          return number((t.type() == TokenType.MINUS ? "-" : "") + n.value());
        }
        Expression operand = unary();
        return t.type() == TokenType.MINUS
            ? new Expression.Unary(Expression.Operator.NEGATE, operand)
            : operand;
      } finally {
        depth--;
      }
    }
    return primary();
  }

  private Expression primary() {
    Token t = in.peek();
    switch (t.type()) {
      case NUMBER:
        in.next();
        return number(t.value());
      case STRING:
        in.next();
        return new Expression.Literal(Expression.Literal.Kind.STRING, t.value());
      case USER_VARIABLE:
        in.next();
        if (t.value().isEmpty()) {
          throw in.error(t, "expected a user variable name after @");
        }
        if (in.peek().type() == TokenType.ASSIGN) {
          throw in.unsupported("assignment to a user variable in an expression");
        }
        return new Expression.UserVariable(t.value());
      case AT_AT:
        return systemVariable();
      case LEFT_PAREN:
        in.next();
        if (in.peekWord("SELECT") || in.peekWord("WITH")) {
          throw in.unsupported("subquery");
        }
        enter();
        try {
          Expression inner = expression();
          if (in.peek().type() == TokenType.COMMA) {
            throw in.unsupported("row constructor");
          }
          in.expect(TokenType.RIGHT_PAREN, "')'");
          return inner;
        } finally {
          depth--;
        }
      case QUOTED_IDENTIFIER:
        return column();
      case WORD:
        return word(t);
      default:
        throw in.error(t, "expected an expression");
    }
  }

  private Expression word(Token t) {
    String upper = t.value().toUpperCase(Locale.ROOT);
    if (upper.startsWith("$$")) {
      throw in.error(t, "dollar-quoted text is not supported");
    }
    if (in.peek(1).type() == TokenType.LEFT_PAREN && !RESERVED.contains(upper)) {
      in.next();
      in.next();
      if (in.peekWord("DISTINCT")) {
        throw in.unsupported(upper + "(DISTINCT ...)");
      }
      List<Expression> arguments = new ArrayList<>();
      if (in.peek().type() == TokenType.STAR && in.peek(1).type() == TokenType.RIGHT_PAREN) {
        in.next();
        arguments.add(new Expression.AllColumns(null));
      } else if (in.peek().type() != TokenType.RIGHT_PAREN) {
        enter();
        try {
          do {
            if (arguments.size() == MAX_ARGUMENTS) {
              throw in.error(in.peek(), "more than " + MAX_ARGUMENTS + " function arguments");
            }
            arguments.add(expression());
          } while (in.accept(TokenType.COMMA));
        } finally {
          depth--;
        }
      }
      in.expect(TokenType.RIGHT_PAREN, "')'");
      if (in.peekWord("OVER")) {
        throw in.unsupported("window function");
      }
      return new Expression.FunctionCall(upper, arguments);
    }
    switch (upper) {
      case "NULL":
        in.next();
        return Expression.Literal.nullValue();
      case "TRUE":
        in.next();
        return new Expression.Literal(Expression.Literal.Kind.INTEGER, "1");
      case "FALSE":
        in.next();
        return new Expression.Literal(Expression.Literal.Kind.INTEGER, "0");
      case "CURRENT_USER":
      case "CURRENT_TIMESTAMP":
      case "LOCALTIME":
      case "LOCALTIMESTAMP":
      case "CURRENT_DATE":
      case "CURRENT_TIME":
        in.next();
        return new Expression.FunctionCall(upper);
      case "CASE":
      case "INTERVAL":
      case "EXISTS":
      case "BINARY":
      case "ROW":
        throw in.unsupported(upper);
      default:
        if (RESERVED.contains(upper)) {
          throw in.error(t, "unexpected keyword");
        }
        return column();
    }
  }

  /** {@code name}, {@code a.name}, {@code a.b.name}, or {@code [a.]*}. */
  private Expression column() {
    List<String> parts = new ArrayList<>();
    parts.add(in.identifier("a column name"));
    while (in.peek().type() == TokenType.DOT && parts.size() < 3) {
      in.next();
      if (in.peek().type() == TokenType.STAR) {
        in.next();
        return new Expression.AllColumns(String.join(".", parts));
      }
      parts.add(in.identifier("a column name"));
    }
    String name = parts.remove(parts.size() - 1);
    return new Expression.Column(parts.isEmpty() ? null : String.join(".", parts), name);
  }

  Expression.SystemVariable systemVariable() {
    in.expect(TokenType.AT_AT, "'@@'");
    VariableScope scope = VariableScope.DEFAULT;
    Token name = variableName();
    if (in.peek().type() == TokenType.DOT) {
      VariableScope prefix = scopeWord(name);
      if (prefix == null) {
        throw in.error(name, "expected GLOBAL, SESSION or LOCAL before '.'");
      }
      in.next();
      scope = prefix;
      name = variableName();
    }
    return new Expression.SystemVariable(scope, name.value());
  }

  Token variableName() {
    Token t = in.peek();
    if (t.type() == TokenType.WORD || t.type() == TokenType.QUOTED_IDENTIFIER) {
      in.next();
      return t;
    }
    throw in.error(t, "expected a variable name");
  }

  static VariableScope scopeWord(Token t) {
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

  static Expression number(String text) {
    boolean hex = text.startsWith("0x") || text.startsWith("0X");
    boolean decimal =
        !hex && (text.indexOf('.') >= 0 || text.indexOf('e') >= 0 || text.indexOf('E') >= 0);
    return new Expression.Literal(
        decimal ? Expression.Literal.Kind.DECIMAL : Expression.Literal.Kind.INTEGER, text);
  }

  private void enter() {
    if (++depth > MAX_DEPTH) {
      depth = 0;
      throw in.error(in.peek(), "expression nested more than " + MAX_DEPTH + " deep");
    }
  }
}
