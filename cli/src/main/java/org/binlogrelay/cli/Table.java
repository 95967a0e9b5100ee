package org.binlogrelay.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table as {@code kubectl get} prints one: upper-case headers, left-aligned columns
 * separated by two spaces, no borders, no trailing blanks. Given a width, the widest truncatable
 * column is shortened (ending in {@code ~}) until the table fits, so that nothing wraps on a narrow
 * terminal. Not thread-safe.
 */
final class Table {
  private static final String GAP = "  ";
  private static final int MIN_TRUNCATED = 6;

  private final String[] headers;
  private final boolean[] truncatable;
  private final int[] minimum;
  private final List<String[]> rows = new ArrayList<>();

  private Table(String... headers) {
    this.headers = headers.clone();
    this.truncatable = new boolean[headers.length];
    this.minimum = new int[headers.length];
  }

  static Table of(String... headers) {
    return new Table(headers);
  }

  /** Lets column {@code index} be shortened to fit the width (names, hosts; not numbers). */
  Table truncatable(int index) {
    truncatable[index] = true;
    return this;
  }

  /**
   * Keeps column {@code index} at least {@code width} wide, so that a table refreshed in place does
   * not shift when its values change length.
   */
  Table minimumWidth(int index, int width) {
    minimum[index] = width;
    return this;
  }

  Table row(String... cells) {
    if (cells.length != headers.length) {
      throw new IllegalArgumentException(
          cells.length + " cells for " + headers.length + " columns");
    }
    String[] copy = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      copy[i] = cells[i] == null ? HumanUnits.UNKNOWN : cells[i];
    }
    rows.add(copy);
    return this;
  }

  int size() {
    return rows.size();
  }

  /** The lines, fitted into {@code width} columns as far as truncating allows. */
  List<String> render(int width) {
    int[] widths = new int[headers.length];
    for (int i = 0; i < headers.length; i++) {
      widths[i] = Math.max(minimum[i], headers[i].length());
      for (String[] row : rows) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    while (total(widths) > width) {
      int widest = -1;
      for (int i = 0; i < widths.length; i++) {
        if (truncatable[i]
            && widths[i] > Math.max(MIN_TRUNCATED, headers[i].length())
            && (widest < 0 || widths[i] > widths[widest])) {
          widest = i;
        }
      }
      if (widest < 0) {
        break;
      }
      widths[widest]--;
    }
    List<String> lines = new ArrayList<>();
    lines.add(line(headers, widths));
    for (String[] row : rows) {
      lines.add(line(row, widths));
    }
    return lines;
  }

  private static int total(int[] widths) {
    return Arrays.stream(widths).sum() + GAP.length() * (widths.length - 1);
  }

  private static String line(String[] cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      String cell =
          cells[i].length() > widths[i] ? cells[i].substring(0, widths[i] - 1) + "~" : cells[i];
      line.append(cell);
      if (i < cells.length - 1) {
        line.append(" ".repeat(widths[i] - cell.length())).append(GAP);
      }
    }
    return line.toString().stripTrailing();
  }
}
