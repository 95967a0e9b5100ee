package org.binlogrelay.server.downstream.sql;

import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;

/**
 * Column definitions shaped like the ones MySQL 9.7 and MariaDB 10.11 send for the same results
 * (lengths, flags, decimals taken from captured transcripts), in the server's collation. Immutable.
 */
public record Columns(int collationId) {
  /** NOT_FIXED_DEC, what MySQL puts in the decimals of string results. */
  private static final int NOT_FIXED_DECIMALS = 31;

  private static final int NO_DEFAULT_VALUE_FLAG = 0x1000;

  /** {@code SELECT @@x} of a string variable. */
  public ColumnDefinition stringVariable(String name) {
    return ColumnDefinition.computed(
        name, collationId, 87380, ColumnType.VAR_STRING, 0, NOT_FIXED_DECIMALS);
  }

  /** {@code SELECT @@x} of an integer variable. */
  public ColumnDefinition integerVariable(String name, boolean unsigned) {
    return ColumnDefinition.computed(
        name,
        ColumnDefinition.BINARY,
        21,
        ColumnType.LONGLONG,
        (unsigned ? ColumnDefinition.UNSIGNED_FLAG : 0) | ColumnDefinition.BINARY_FLAG,
        0);
  }

  /** {@code SELECT @@x} of a boolean variable: 0 or 1. */
  public ColumnDefinition booleanVariable(String name) {
    return ColumnDefinition.computed(
        name, ColumnDefinition.BINARY, 1, ColumnType.LONGLONG, ColumnDefinition.BINARY_FLAG, 0);
  }

  /** {@code SELECT @x} of a string (or unset) user variable. */
  public ColumnDefinition userString(String name) {
    return ColumnDefinition.computed(
        name, collationId, 201326580, ColumnType.LONG_BLOB, 0, NOT_FIXED_DECIMALS);
  }

  /** A string literal or function result that is never NULL, sized for {@code value}. */
  public ColumnDefinition stringValue(String name, String value) {
    int chars = value == null ? 0 : value.codePointCount(0, value.length());
    return ColumnDefinition.computed(
        name,
        collationId,
        4L * chars,
        ColumnType.VAR_STRING,
        value == null ? 0 : ColumnDefinition.NOT_NULL_FLAG,
        NOT_FIXED_DECIMALS);
  }

  /** A function result that may be NULL, e.g. {@code DATABASE()}. */
  public ColumnDefinition nullableString(String name, int maxChars) {
    return ColumnDefinition.computed(
        name, collationId, 4L * maxChars, ColumnType.VAR_STRING, 0, NOT_FIXED_DECIMALS);
  }

  /** An integer literal or function result, never NULL. */
  public ColumnDefinition integerValue(String name, int length) {
    return ColumnDefinition.computed(
        name,
        ColumnDefinition.BINARY,
        length,
        ColumnType.LONGLONG,
        ColumnDefinition.NOT_NULL_FLAG | ColumnDefinition.BINARY_FLAG,
        0);
  }

  public ColumnDefinition decimalValue(String name, String text) {
    int dot = text.indexOf('.');
    int decimals = dot < 0 ? 0 : text.length() - dot - 1;
    return ColumnDefinition.computed(
        name,
        ColumnDefinition.BINARY,
        text.length(),
        ColumnType.NEWDECIMAL,
        ColumnDefinition.NOT_NULL_FLAG | ColumnDefinition.BINARY_FLAG,
        Math.min(decimals, 30));
  }

  public ColumnDefinition nullValue(String name) {
    return ColumnDefinition.computed(
        name, ColumnDefinition.BINARY, 0, ColumnType.NULL, ColumnDefinition.BINARY_FLAG, 0);
  }

  /** A column of a SHOW statement's table: a string of up to {@code length} bytes. */
  public ColumnDefinition text(String name, long length, boolean notNull) {
    return ColumnDefinition.computed(
        name,
        collationId,
        length,
        ColumnType.VAR_STRING,
        notNull ? ColumnDefinition.NOT_NULL_FLAG : 0,
        NOT_FIXED_DECIMALS);
  }

  /** A column of a SHOW statement's table: an unsigned number. */
  public ColumnDefinition number(String name, ColumnType type, long length) {
    return ColumnDefinition.computed(
        name,
        ColumnDefinition.BINARY,
        length,
        type,
        ColumnDefinition.NOT_NULL_FLAG
            | ColumnDefinition.UNSIGNED_FLAG
            | ColumnDefinition.BINARY_FLAG,
        0);
  }

  /** {@code SHOW VARIABLES}' two columns. */
  public ColumnDefinition variableName() {
    return ColumnDefinition.computed(
        "Variable_name",
        collationId,
        256,
        ColumnType.VAR_STRING,
        ColumnDefinition.NOT_NULL_FLAG | NO_DEFAULT_VALUE_FLAG,
        0);
  }

  public ColumnDefinition variableValue() {
    return ColumnDefinition.computed("Value", collationId, 4096, ColumnType.VAR_STRING, 0, 0);
  }
}
