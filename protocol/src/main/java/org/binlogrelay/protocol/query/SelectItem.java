package org.binlogrelay.protocol.query;

import java.util.Objects;

/**
 * One entry of a {@code SELECT} list with the column name MySQL gives it: the alias if there is
 * one, else the expression's source text as written (a string literal's value for a string
 * literal). Immutable.
 */
public record SelectItem(Expression expression, String columnName) {
  public SelectItem {
    Objects.requireNonNull(expression, "expression");
    Objects.requireNonNull(columnName, "columnName");
  }
}
