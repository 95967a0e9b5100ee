package org.binlogrelay.protocol.query;

/** What {@code SHOW VARIABLES} keeps: everything, {@code LIKE 'pattern'}, or {@code WHERE Variable_name = 'x'}. */
public sealed interface VariableFilter {

  /** True if a variable of this name is shown. */
  boolean matches(String variableName);

  record All() implements VariableFilter {
    @Override
    public boolean matches(String variableName) {
      return true;
    }
  }

  /** {@code LIKE 'pattern'} or {@code WHERE Variable_name LIKE 'pattern'}. */
  record Like(LikePattern pattern) implements VariableFilter {
    @Override
    public boolean matches(String variableName) {
      return pattern.matches(variableName);
    }
  }

  /** {@code WHERE Variable_name = 'x'} (case-insensitive, as the column's collation is). */
  record NameEquals(String name) implements VariableFilter {
    @Override
    public boolean matches(String variableName) {
      return variableName.equalsIgnoreCase(name);
    }
  }
}
