package org.binlogrelay.protocol.query;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The expressions replicas and tools put in {@code SELECT} lists and {@code SET} values: literals, user
 * variables, system variables, function calls, a bare word (such as {@code ON}) and {@code DEFAULT}. No
 * operators. Immutable.
 */
public sealed interface Expression {

  /** A literal; {@code text} is the value (strings unescaped), null for SQL NULL. */
  record Literal(Kind kind, String text) implements Expression {
    /** Literal kinds; the server picks the column type from it. */
    public enum Kind { STRING, INTEGER, DECIMAL, NULL }

    public Literal {
      Objects.requireNonNull(kind, "kind");
      if ((kind == Kind.NULL) != (text == null)) {
        throw new IllegalArgumentException("NULL literal must have null text and only it: " + kind + " " + text);
      }
    }

    public static Literal nullValue() {
      return new Literal(Kind.NULL, null);
    }
  }

  /** {@code @name}; names are case-insensitive, kept as written. */
  record UserVariable(String name) implements Expression {}

  /** {@code @@[scope.]name}; the name as written (servers quote it so in errors), compared ignoring case. */
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

  /** A bare word used as a value, e.g. {@code ON} in {@code SET autocommit = ON}; kept as written. */
  record Word(String word) implements Expression {}

  /** {@code DEFAULT} on the right of a {@code SET}. */
  record Default() implements Expression {}
}
