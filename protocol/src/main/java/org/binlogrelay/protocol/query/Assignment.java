package org.binlogrelay.protocol.query;

/** One assignment of a {@code SET} statement. Immutable. */
public sealed interface Assignment {

  /** {@code @name = value} or {@code @name := value}. */
  record UserVariable(String name, Expression value) implements Assignment {}

  /**
   * {@code [GLOBAL|SESSION|LOCAL] name = value} or {@code @@[scope.]name = value}; name as written.
   */
  record SystemVariable(VariableScope scope, String name, Expression value) implements Assignment {}

  /**
   * {@code NAMES charset [COLLATE collation]}; collation null when not given. {@code DEFAULT} is
   * "default".
   */
  record Names(String charset, String collation) implements Assignment {}
}
