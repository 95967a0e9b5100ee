package org.binlogrelay.server.upstream;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The rows of a text-protocol result set: column names and values as text ({@code null} for SQL
 * NULL). Immutable.
 *
 * @param columns the column names, in order
 * @param rows each row's values, in column order
 */
record ResultRows(List<String> columns, List<List<String>> rows) {

  ResultRows {
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

  static ResultRows empty() {
    return new ResultRows(List.of(), List.of());
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  /** The value of {@code column} (matched ignoring case) in row {@code row}. */
  String value(int row, String column) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).equalsIgnoreCase(column)) {
        return rows.get(row).get(i);
      }
    }
    throw new NoSuchElementException("no column " + column + " in " + columns);
  }
}
