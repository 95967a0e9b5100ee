package org.binlogrelay.e2e.downstream;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a server answered one statement over JDBC: an error (code, SQL state, text), an update
 * count, or a result (its column labels and its rows, each a map from label to text, SQL NULL as
 * null), so that the primary's and the relay's answers can be compared. Immutable.
 */
record SqlAnswer(
    String sql,
    int errorCode,
    String sqlState,
    String message,
    List<String> columns,
    List<Map<String, String>> rows) {

  /** Runs {@code sql} on {@code c}. */
  static SqlAnswer of(Connection c, String sql) {
    try (Statement s = c.createStatement()) {
      if (!s.execute(sql)) {
        return new SqlAnswer(sql, 0, null, null, List.of(), List.of());
      }
      try (ResultSet rs = s.getResultSet()) {
        ResultSetMetaData meta = rs.getMetaData();
        List<String> columns = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          columns.add(meta.getColumnLabel(i));
        }
        List<Map<String, String>> rows = new ArrayList<>();
        while (rs.next()) {
          Map<String, String> row = new LinkedHashMap<>();
          for (int i = 1; i <= columns.size(); i++) {
            row.put(columns.get(i - 1), rs.getString(i));
          }
          rows.add(row);
        }
        return new SqlAnswer(sql, 0, null, null, columns, rows);
      }
    } catch (SQLException e) {
      return new SqlAnswer(
          sql, e.getErrorCode(), e.getSQLState(), e.getMessage(), List.of(), List.of());
    }
  }

  boolean failed() {
    return errorCode != 0;
  }

  /** The only row's value of {@code column}. */
  String value(String column) {
    if (rows.size() != 1) {
      throw new AssertionError(sql + " returned " + rows.size() + " rows, expected 1: " + this);
    }
    return rows.get(0).get(column);
  }

  /**
   * The first column's value of each row mapped to its second column's (SHOW VARIABLES / SHOW
   * STATUS).
   */
  Map<String, String> nameValues() {
    Map<String, String> m = new LinkedHashMap<>();
    for (Map<String, String> row : rows) {
      m.put(row.get(columns.get(0)), row.get(columns.get(1)));
    }
    return m;
  }

  @Override
  public String toString() {
    return failed()
        ? sql + " -> ERROR " + errorCode + " (" + sqlState + "): " + message
        : sql + " -> " + columns + " " + rows;
  }
}
