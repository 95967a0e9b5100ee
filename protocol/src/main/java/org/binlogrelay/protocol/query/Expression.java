package org.binlogrelay.protocol.query;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The expressions replicas, connectors and monitoring tools put in {@code SELECT} lists, {@code
 * WHERE} clauses and {@code SET} values: literals, user variables, system variables, function
 * calls, column references, the operators of {@link Operator} ({@code =}, {@code AND}, {@code +},
 * ...), {@code IN}, {@code LIKE}, {@code IS NULL}, a bare word (such as {@code ON}) and {@code
 * DEFAULT}. Immutable.
 */
public sealed interface Expression {

  /** A literal; {@code text} is the value (strings unescaped), null for SQL NULL. */
  record Literal(Kind kind, String text) implements Expression {
    /** Literal kinds; the server picks the column type from it. */
    public enum Kind {
      STRING,
      INTEGER,
      DECIMAL,
      NULL
    }

    public Literal {
      Objects.requireNonNull(kind, "kind");
      if ((kind == Kind.NULL) != (text == null)) {
        throw new IllegalArgumentException(
            "NULL literal must have null text and only it: " + kind + " " + text);
      }
    }

    public static Literal nullValue() {
      return new Literal(Kind.NULL, null);
    }
  }

  /** {@code @name}; names are case-insensitive, kept as written. */
  record UserVariable(String name) implements Expression {}

  /**
   * {@code @@[scope.]name}; the name as written (servers quote it so in errors), compared ignoring
   * case.
   */
  record SystemVariable(VariableScope scope, String name) implements Expression {}

  /**
   * A function call, name upper-cased: {@code VERSION()}, {@code UNIX_TIMESTAMP()}, MariaDB's
   * {@code binlog_gtid_pos('file', pos)}; arguments are expressions.
   */
  record FunctionCall(String name, List<Expression> arguments) implements Expression {
    public FunctionCall {
      name = name.toUpperCase(Locale.ROOT);
      arguments = List.copyOf(arguments);
    }

    public FunctionCall(String name) {
      this(name, List.of());
    }
  }

  /**
   * A bare word used as a value, e.g. {@code ON} in {@code SET autocommit = ON}; kept as written.
   */
  record Word(String word) implements Expression {}

  /** {@code DEFAULT} on the right of a {@code SET}. */
  record Default() implements Expression {}

  /**
   * A column of the table a {@code SELECT} reads, or of a {@code SHOW} statement's result in its
   * {@code WHERE}; {@code qualifier} is the table (or {@code schema.table}) written before it, null
   * if none. Names as written.
   */
  record Column(String qualifier, String name) implements Expression {
    public Column {
      Objects.requireNonNull(name, "name");
    }
  }

  /** {@code *} in a select list or in {@code COUNT(*)}; {@code qualifier} as in {@link Column}. */
  record AllColumns(String qualifier) implements Expression {}

  /** The binary and unary operators, loosest-binding first as MySQL ranks them. */
  enum Operator {
    OR,
    XOR,
    AND,
    NOT,
    EQUAL,
    NULL_SAFE_EQUAL,
    NOT_EQUAL,
    LESS,
    LESS_OR_EQUAL,
    GREATER,
    GREATER_OR_EQUAL,
    PLUS,
    MINUS,
    TIMES,
    DIVIDE,
    INTEGER_DIVIDE,
    MODULO,
    NEGATE
  }

  /** {@code NOT x} or {@code -x}. */
  record Unary(Operator operator, Expression operand) implements Expression {
    public Unary {
      Objects.requireNonNull(operator, "operator");
      Objects.requireNonNull(operand, "operand");
    }
  }

  /** {@code left op right}. */
  record Binary(Operator operator, Expression left, Expression right) implements Expression {
    public Binary {
      Objects.requireNonNull(operator, "operator");
      Objects.requireNonNull(left, "left");
      Objects.requireNonNull(right, "right");
    }
  }

  /** {@code operand [NOT] IN (values)}. */
  record In(Expression operand, List<Expression> values, boolean negated) implements Expression {
    public In {
      values = List.copyOf(values);
    }
  }

  /** {@code operand [NOT] LIKE pattern}. */
  record Like(Expression operand, Expression pattern, boolean negated) implements Expression {}

  /** {@code operand IS [NOT] NULL}. */
  record IsNull(Expression operand, boolean negated) implements Expression {}
}
