package org.binlogrelay.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Key/value text as {@code kubectl describe} prints it: section titles at the left, fields indented
 * below them with their values aligned in one column; a value with several lines (a long GTID set)
 * continues under itself. Not thread-safe.
 */
final class Description {
  private static final String INDENT = "  ";

  private record Line(String section, String label, String value) {}

  private final List<Line> lines = new ArrayList<>();

  Description section(String title) {
    lines.add(new Line(title, null, null));
    return this;
  }

  Description field(String label, String value) {
    lines.add(new Line(null, label, value == null ? HumanUnits.UNKNOWN : value));
    return this;
  }

  List<String> render() {
    int labelWidth = 0;
    for (Line line : lines) {
      if (line.label() != null) {
        labelWidth = Math.max(labelWidth, line.label().length() + 1);
      }
    }
    List<String> out = new ArrayList<>();
    for (Line line : lines) {
      if (line.section() != null) {
        out.add(line.section());
        continue;
      }
      String[] parts = line.value().split("\n", -1);
      String label = line.label() + ":";
      out.add(
          (INDENT + label + " ".repeat(labelWidth - label.length() + 2) + parts[0])
              .stripTrailing());
      for (int i = 1; i < parts.length; i++) {
        out.add((INDENT + " ".repeat(labelWidth + 2) + parts[i]).stripTrailing());
      }
    }
    return out;
  }
}
