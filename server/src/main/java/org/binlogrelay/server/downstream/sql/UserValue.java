package org.binlogrelay.server.downstream.sql;

/**
 * The value of a user variable ({@code @name}): text, and the kind of what was assigned, which
 * decides the column type a later {@code SELECT @name} returns. Immutable.
 */
public record UserValue(String text, Kind kind) {
  /** What was assigned. */
  public enum Kind {
    STRING,
    INTEGER,
    DECIMAL,
    NULL
  }

  public static final UserValue NULL = new UserValue(null, Kind.NULL);
}
