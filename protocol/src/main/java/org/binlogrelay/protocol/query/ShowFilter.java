package org.binlogrelay.protocol.query;

import java.util.Objects;

/**
 * Which rows a {@code SHOW} statement keeps: all of them, {@code LIKE 'pattern'} (on its first
 * column, e.g. {@code Variable_name}), or {@code WHERE expression} over its columns by name ({@code
 * WHERE Variable_name IN ('a', 'b')}, {@code WHERE Value = 'ON'}). Immutable.
 */
public sealed interface ShowFilter {

  /** No filter. */
  record All() implements ShowFilter {}

  /** {@code LIKE 'pattern'}: the first column matches, ignoring case. */
  record Like(LikePattern pattern) implements ShowFilter {
    public Like {
      Objects.requireNonNull(pattern, "pattern");
    }
  }

  /**
   * {@code WHERE condition}: rows for which the condition is true; columns by their names, ignoring
   * case.
   */
  record Where(Expression condition) implements ShowFilter {
    public Where {
      Objects.requireNonNull(condition, "condition");
    }
  }
}
