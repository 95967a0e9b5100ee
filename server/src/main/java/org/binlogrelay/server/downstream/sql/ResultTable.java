package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.query.TextResultSet;

/**
 * Rows under named, typed columns: what a SHOW statement or one of the relay's tables ({@code
 * information_schema.PROCESSLIST}, {@code performance_schema.replication_connection_status}) holds
 * before a {@code WHERE}, {@code ORDER BY} or {@code LIMIT} is applied ({@link TableQuery}). Column
 * names compare ignoring case, as MySQL's do. Immutable.
 */
record ResultTable(List<ColumnDefinition> columns, List<List<String>> rows) {
  ResultTable {
    columns = List.copyOf(columns);
    List<List<String>> copy = new ArrayList<>(rows.size());
    for (List<String> row : rows) {
      if (row.size() != columns.size()) {
        throw new IllegalArgumentException(
            "row of " + row.size() + " values for " + columns.size() + " columns");
      }
      copy.add(Collections.unmodifiableList(new ArrayList<>(row)));
    }
    rows = Collections.unmodifiableList(copy);
  }

  /** A row from values, nulls allowed. */
  static List<String> row(String... values) {
    return Arrays.asList(values);
  }

  /** The index of the column named {@code name}, ignoring case; -1 if there is none. */
  int indexOf(String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equalsIgnoreCase(name)) {
        return i;
      }
    }
    return -1;
  }

  /** How a column's values compare: numerically for numeric columns, as text otherwise. */
  UserValue.Kind kind(int column) {
    ColumnType t = columns.get(column).type();
    switch (t) {
      case TINY:
      case SHORT:
      case LONG:
      case LONGLONG:
      case INT24:
      case YEAR:
        return UserValue.Kind.INTEGER;
      case DECIMAL:
      case NEWDECIMAL:
      case FLOAT:
      case DOUBLE:
        return UserValue.Kind.DECIMAL;
      default:
        return UserValue.Kind.STRING;
    }
  }

  /** The value of {@code column} in row {@code row}. */
  UserValue value(int row, int column) {
    String text = rows.get(row).get(column);
    return text == null ? UserValue.NULL : new UserValue(text, kind(column));
  }

  TextResultSet toResultSet() {
    return new TextResultSet(columns, rows);
  }

  /** The name of every column, upper-cased, for messages. */
  String describe() {
    StringBuilder s = new StringBuilder();
    for (ColumnDefinition c : columns) {
      s.append(s.length() == 0 ? "" : ", ").append(c.name().toUpperCase(Locale.ROOT));
    }
    return s.toString();
  }
}
