package org.binlogrelay.server.downstream.sql;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Locale;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.query.Expression;
import org.binlogrelay.protocol.query.LikePattern;
import org.binlogrelay.protocol.query.VariableScope;

/**
 * Evaluates {@link Expression}s as MySQL does for the values the relay knows: literals, user and
 * system variables, functions ({@link Functions}), the columns of the row at hand (a SHOW
 * statement's or a table's, in {@code WHERE} and select lists), comparisons (text compares ignoring
 * case, as under the servers' default {@code _ci} collations; a number and a text compare as
 * numbers), {@code AND} / {@code OR} / {@code NOT} with SQL's three-valued logic, {@code IN},
 * {@code LIKE}, {@code IS NULL} and arithmetic ({@code /} gives 4 decimals, as with {@code
 * div_precision_increment=4}).
 *
 * <p>Not thread-safe: one per statement, on the connection's event loop.
 */
final class Evaluator {
  /** A computed value and the column it goes out under. */
  record Value(UserValue value, ColumnDefinition column) {
    String text() {
      return value.text();
    }
  }

  private static final int DIVISION_SCALE = 4;

  /**
   * The most characters a number literal may have (MySQL keeps 65 decimal digits, doubles about
   * 17).
   */
  private static final int MAX_NUMBER_CHARS = 100;

  /** A double's largest decimal exponent. */
  private static final int MAX_EXPONENT = 308;

  private final SqlEnvironment env;
  private final SessionVariables session;
  private final Functions functions;
  private ResultTable table;
  private int row = -1;
  private boolean inWhere;

  Evaluator(SqlEnvironment env, ClientContext client, SessionVariables session) {
    this.env = env;
    this.session = session;
    this.functions = new Functions(env, client, session, this);
  }

  /** From now on columns are read from {@code table}'s row {@code index}. */
  Evaluator at(ResultTable rows, int index, boolean where) {
    this.table = rows;
    this.row = index;
    this.inWhere = where;
    return this;
  }

  ResultTable table() {
    return table;
  }

  /** Whether {@code condition} holds (true; false and NULL do not). */
  boolean holds(Expression condition) {
    Boolean b = truth(value(condition, "").value());
    return b != null && b;
  }

  Value value(Expression e, String name) {
    Columns columns = env.columns();
    if (e instanceof Expression.Literal l) {
      switch (l.kind()) {
        case STRING:
          return new Value(
              new UserValue(l.text(), UserValue.Kind.STRING), columns.stringValue(name, l.text()));
        case INTEGER:
          {
            checkNumber(l.text());
            String n = integerLiteral(l.text());
            return new Value(
                new UserValue(n, UserValue.Kind.INTEGER),
                columns.integerValue(name, Math.max(1, n.length())));
          }
        case DECIMAL:
          {
            checkNumber(l.text());
            String d = new BigDecimal(l.text()).toPlainString();
            return new Value(
                new UserValue(d, UserValue.Kind.DECIMAL), columns.decimalValue(name, d));
          }
        default:
          return new Value(UserValue.NULL, columns.nullValue(name));
      }
    }
    if (e instanceof Expression.UserVariable u) {
      UserValue v = session.user(u.name());
      switch (v.kind()) {
        case INTEGER:
          return new Value(v, columns.integerVariable(name, false));
        case DECIMAL:
          return new Value(v, columns.decimalValue(name, v.text()));
        default:
          return new Value(v, columns.userString(name));
      }
    }
    if (e instanceof Expression.SystemVariable s) {
      return systemVariable(s, name);
    }
    if (e instanceof Expression.FunctionCall f) {
      return functions.call(f, name);
    }
    if (e instanceof Expression.Column c) {
      return column(c, name);
    }
    if (e instanceof Expression.Unary u) {
      return unary(u, name);
    }
    if (e instanceof Expression.Binary b) {
      return binary(b, name);
    }
    if (e instanceof Expression.In in) {
      return in(in, name);
    }
    if (e instanceof Expression.Like like) {
      UserValue text = value(like.operand(), name).value();
      UserValue pattern = value(like.pattern(), name).value();
      if (text.text() == null || pattern.text() == null) {
        return bool(null, name);
      }
      return bool(LikePattern.compile(pattern.text()).matches(text.text()) != like.negated(), name);
    }
    if (e instanceof Expression.IsNull n) {
      return bool((value(n.operand(), name).text() == null) != n.negated(), name);
    }
    if (e instanceof Expression.AllColumns) {
      throw new StatementRefused(ErrorMessages.parseError(env.dialect().productName(), "*", 1));
    }
    throw new StatementRefused(ErrorMessages.parseError(env.dialect().productName(), name, 1));
  }

  /**
   * Numbers beyond a double's range (or with more digits than the servers keep) are MySQL's
   * ER_ILLEGAL_VALUE_FOR_TYPE, and would otherwise cost memory out of proportion to the statement
   * ({@code 1e999999999} written out).
   */
  private static void checkNumber(String text) {
    boolean tooLong = text.length() > MAX_NUMBER_CHARS;
    boolean tooLarge = false;
    if (!tooLong && !text.startsWith("0x") && !text.startsWith("0X")) {
      BigDecimal n = new BigDecimal(text);
      tooLarge =
          n.signum() != 0
              && (n.precision() - n.scale() > MAX_EXPONENT || n.scale() > MAX_NUMBER_CHARS);
    }
    if (tooLong || tooLarge) {
      throw new StatementRefused(ErrorMessages.illegalDouble(text));
    }
  }

  static String integerLiteral(String text) {
    if (text.startsWith("0x") || text.startsWith("0X")) {
      return new BigInteger(text.substring(2), 16).toString();
    }
    return new BigInteger(text).toString();
  }

  private Value systemVariable(Expression.SystemVariable s, String name) {
    Columns columns = env.columns();
    SystemVariable variable =
        env.variables()
            .find(s.name())
            .orElseThrow(() -> new StatementRefused(ErrorMessages.unknownSystemVariable(s.name())));
    String text = read(variable, s.scope(), s.name());
    UserValue.Kind kind =
        text == null
            ? UserValue.Kind.NULL
            : variable.type() == VariableType.STRING
                ? UserValue.Kind.STRING
                : UserValue.Kind.INTEGER;
    UserValue v = new UserValue(text, kind);
    switch (variable.type()) {
      case UNSIGNED:
        return new Value(v, columns.integerVariable(name, true));
      case SIGNED:
        return new Value(v, columns.integerVariable(name, false));
      case BOOLEAN:
        return new Value(v, columns.booleanVariable(name));
      default:
        return new Value(v, columns.stringVariable(name));
    }
  }

  /**
   * The value {@code @@[scope.]name} reads: the session's own value if it has one, else the global
   * one.
   */
  String read(SystemVariable variable, VariableScope scope, String writtenName) {
    if (scope == VariableScope.SESSION && !variable.hasSessionValue()) {
      throw new StatementRefused(
          ErrorMessages.globalOnlyVariable(writtenName.toLowerCase(Locale.ROOT)));
    }
    if (scope != VariableScope.GLOBAL && variable.hasSessionValue()) {
      var own = session.system(variable.name());
      if (own.isPresent()) {
        return own.get().value();
      }
    }
    return variable.globalValue().get();
  }

  private Value column(Expression.Column c, String name) {
    int index = table == null ? -1 : table.indexOf(c.name());
    if (index < 0 || row < 0) {
      String qualified = c.qualifier() == null ? c.name() : c.qualifier() + "." + c.name();
      throw new StatementRefused(
          ErrorMessages.unknownColumn(qualified, env.dialect().columnClause(inWhere)));
    }
    ColumnDefinition def = table.columns().get(index);
    ColumnDefinition renamed =
        new ColumnDefinition(
            def.schema(),
            def.table(),
            def.originalTable(),
            name,
            def.originalName(),
            def.characterSet(),
            def.columnLength(),
            def.type(),
            def.flags(),
            def.decimals());
    return new Value(table.value(row, index), renamed);
  }

  private Value unary(Expression.Unary u, String name) {
    UserValue operand = value(u.operand(), name).value();
    if (u.operator() == Expression.Operator.NOT) {
      Boolean b = truth(operand);
      return bool(b == null ? null : !b, name);
    }
    if (operand.text() == null) {
      return new Value(UserValue.NULL, env.columns().nullValue(name));
    }
    BigDecimal n = number(operand).negate();
    return numeric(n, operand.kind() == UserValue.Kind.INTEGER, name);
  }

  private Value binary(Expression.Binary b, String name) {
    switch (b.operator()) {
      case AND:
        {
          Boolean left = truth(value(b.left(), name).value());
          if (Boolean.FALSE.equals(left)) {
            return bool(false, name);
          }
          Boolean right = truth(value(b.right(), name).value());
          if (Boolean.FALSE.equals(right)) {
            return bool(false, name);
          }
          return bool(left == null || right == null ? null : true, name);
        }
      case OR:
        {
          Boolean left = truth(value(b.left(), name).value());
          if (Boolean.TRUE.equals(left)) {
            return bool(true, name);
          }
          Boolean right = truth(value(b.right(), name).value());
          if (Boolean.TRUE.equals(right)) {
            return bool(true, name);
          }
          return bool(left == null || right == null ? null : false, name);
        }
      case XOR:
        {
          Boolean left = truth(value(b.left(), name).value());
          Boolean right = truth(value(b.right(), name).value());
          return bool(left == null || right == null ? null : left ^ right, name);
        }
      default:
        break;
    }
    UserValue left = value(b.left(), name).value();
    UserValue right = value(b.right(), name).value();
    switch (b.operator()) {
      case NULL_SAFE_EQUAL:
        if (left.text() == null || right.text() == null) {
          return bool(left.text() == null && right.text() == null, name);
        }
        return bool(compare(left, right) == 0, name);
      case EQUAL:
      case NOT_EQUAL:
      case LESS:
      case LESS_OR_EQUAL:
      case GREATER:
      case GREATER_OR_EQUAL:
        {
          if (left.text() == null || right.text() == null) {
            return bool(null, name);
          }
          int c = compare(left, right);
          boolean result;
          switch (b.operator()) {
            case EQUAL:
              result = c == 0;
              break;
            case NOT_EQUAL:
              result = c != 0;
              break;
            case LESS:
              result = c < 0;
              break;
            case LESS_OR_EQUAL:
              result = c <= 0;
              break;
            case GREATER:
              result = c > 0;
              break;
            default:
              result = c >= 0;
          }
          return bool(result, name);
        }
      default:
        return arithmetic(b.operator(), left, right, name);
    }
  }

  private Value arithmetic(Expression.Operator op, UserValue left, UserValue right, String name) {
    if (left.text() == null || right.text() == null) {
      return new Value(UserValue.NULL, env.columns().nullValue(name));
    }
    BigDecimal l = number(left);
    BigDecimal r = number(right);
    boolean integers =
        left.kind() == UserValue.Kind.INTEGER && right.kind() == UserValue.Kind.INTEGER;
    switch (op) {
      case PLUS:
        return numeric(l.add(r), integers, name);
      case MINUS:
        return numeric(l.subtract(r), integers, name);
      case TIMES:
        return numeric(l.multiply(r), integers, name);
      case DIVIDE:
        if (r.signum() == 0) {
          return new Value(UserValue.NULL, env.columns().nullValue(name));
        }
        return numeric(
            l.divide(r, Math.max(l.scale(), 0) + DIVISION_SCALE, RoundingMode.HALF_UP),
            false,
            name);
      case INTEGER_DIVIDE:
        if (r.signum() == 0) {
          return new Value(UserValue.NULL, env.columns().nullValue(name));
        }
        return numeric(l.divideToIntegralValue(r), true, name);
      case MODULO:
        if (r.signum() == 0) {
          return new Value(UserValue.NULL, env.columns().nullValue(name));
        }
        return numeric(l.remainder(r), integers, name);
      default:
        throw new IllegalStateException("not an arithmetic operator: " + op);
    }
  }

  private Value in(Expression.In in, String name) {
    UserValue operand = value(in.operand(), name).value();
    if (operand.text() == null) {
      return bool(null, name);
    }
    boolean sawNull = false;
    for (Expression e : in.values()) {
      UserValue v = value(e, name).value();
      if (v.text() == null) {
        sawNull = true;
      } else if (compare(operand, v) == 0) {
        return bool(!in.negated(), name);
      }
    }
    return bool(sawNull ? null : in.negated(), name);
  }

  private Value numeric(BigDecimal n, boolean integer, String name) {
    if (integer) {
      String text = n.toBigInteger().toString();
      return new Value(
          new UserValue(text, UserValue.Kind.INTEGER),
          env.columns().integerValue(name, text.length()));
    }
    String text = n.toPlainString();
    return new Value(
        new UserValue(text, UserValue.Kind.DECIMAL), env.columns().decimalValue(name, text));
  }

  Value bool(Boolean b, String name) {
    if (b == null) {
      return new Value(UserValue.NULL, env.columns().integerValue(name, 1));
    }
    return new Value(
        new UserValue(b ? "1" : "0", UserValue.Kind.INTEGER), env.columns().integerValue(name, 1));
  }

  /**
   * SQL truth: NULL is unknown, a number is true unless 0, a text is true if it starts with a
   * non-zero number.
   */
  static Boolean truth(UserValue v) {
    if (v.text() == null) {
      return null;
    }
    return number(v).signum() != 0;
  }

  /**
   * Compares as MySQL does: two texts ignoring case (the _ci collations of variable names, states
   * and users), and as numbers when either side is a number.
   */
  static int compare(UserValue a, UserValue b) {
    boolean numeric =
        a.kind() == UserValue.Kind.INTEGER
            || a.kind() == UserValue.Kind.DECIMAL
            || b.kind() == UserValue.Kind.INTEGER
            || b.kind() == UserValue.Kind.DECIMAL;
    if (numeric) {
      return number(a).compareTo(number(b));
    }
    return a.text()
        .toLowerCase(Locale.ROOT)
        .stripTrailing()
        .compareTo(b.text().toLowerCase(Locale.ROOT).stripTrailing());
  }

  /** A value as a number: MySQL reads the leading number of a text ("12abc" is 12, "abc" is 0). */
  static BigDecimal number(UserValue v) {
    String t = v.text().strip();
    int end = 0;
    if (end < t.length() && (t.charAt(end) == '-' || t.charAt(end) == '+')) {
      end++;
    }
    int digitsFrom = end;
    while (end < t.length() && Character.isDigit(t.charAt(end))) {
      end++;
    }
    if (end < t.length() && t.charAt(end) == '.') {
      end++;
      while (end < t.length() && Character.isDigit(t.charAt(end))) {
        end++;
      }
    }
    String n = t.substring(0, end);
    if (end == digitsFrom || n.equals("-") || n.equals("+") || n.equals(".")) {
      return BigDecimal.ZERO;
    }
    try {
      return new BigDecimal(n.endsWith(".") ? n.substring(0, n.length() - 1) : n);
    } catch (NumberFormatException e) {
      return BigDecimal.ZERO;
    }
  }

  /** Whether a result column holds numbers (for MySQL's shapes of function results). */
  static boolean numericColumn(ColumnDefinition c) {
    return c.type() == ColumnType.LONGLONG
        || c.type() == ColumnType.NEWDECIMAL
        || c.type() == ColumnType.LONG;
  }
}
