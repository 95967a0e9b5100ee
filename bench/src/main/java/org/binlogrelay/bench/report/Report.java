package org.binlogrelay.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of one benchmark run: named figures, tables (e.g. one row per client), notes on how
 * to read them and time series for the plot. Rendered as Markdown ({@link #markdown()}) or JSON
 * ({@link #json()}).
 *
 * <p>Not thread-safe: built by the run's thread after the measurement.
 */
public final class Report {
  /**
   * One figure: a JSON key, a label for people, a value (number, text or boolean) and a unit (""
   * for none).
   */
  public record Figure(String key, String label, Object value, String unit) {}

  /** A table: a JSON key, column names, rows of values. */
  public record Table(String key, String title, List<String> columns, List<List<Object>> rows) {}

  private final String benchmark;
  private final String title;
  private final List<Figure> figures = new ArrayList<>();
  private final List<Table> tables = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final Map<String, Series> series = new LinkedHashMap<>();
  private String plotTitle = "";
  private String plotUnit = "";

  public Report(String benchmark, String title) {
    this.benchmark = benchmark;
    this.title = title;
  }

  public Report figure(String key, String label, Object value, String unit) {
    figures.add(new Figure(key, label, value, unit));
    return this;
  }

  public Report table(
      String key, String tableTitle, List<String> columns, List<List<Object>> rows) {
    tables.add(new Table(key, tableTitle, List.copyOf(columns), rows));
    return this;
  }

  public Report note(String text) {
    notes.add(text);
    return this;
  }

  /** Adds a series to the plot; all series of a report share the y unit. */
  public Report plot(String plotTitleText, String unit, List<Series> lines) {
    plotTitle = plotTitleText;
    plotUnit = unit;
    for (Series s : lines) {
      series.put(s.name(), s);
    }
    return this;
  }

  public List<Figure> figures() {
    return List.copyOf(figures);
  }

  /** The value of a figure, or {@code null}. */
  public Object value(String key) {
    for (Figure f : figures) {
      if (f.key().equals(key)) {
        return f.value();
      }
    }
    return null;
  }

  public List<Table> tables() {
    return List.copyOf(tables);
  }

  /** An SVG line chart of the series, or {@code null} if there are none. */
  public String svg() {
    if (series.isEmpty()) {
      return null;
    }
    return SvgPlot.render(
        title + ": " + plotTitle, "seconds", plotUnit, List.copyOf(series.values()));
  }

  public String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("## ").append(title).append("\n\n| figure | value |\n|---|---|\n");
    for (Figure f : figures) {
      out.append("| ")
          .append(f.label())
          .append(" | ")
          .append(format(f.value()))
          .append(f.unit().isEmpty() ? "" : " " + f.unit())
          .append(" |\n");
    }
    for (Table t : tables) {
      out.append("\n### ").append(t.title()).append("\n\n|");
      for (String c : t.columns()) {
        out.append(' ').append(c).append(" |");
      }
      out.append("\n|");
      out.append("---|".repeat(t.columns().size()));
      out.append('\n');
      for (List<Object> row : t.rows()) {
        out.append('|');
        for (Object v : row) {
          out.append(' ').append(format(v)).append(" |");
        }
        out.append('\n');
      }
    }
    if (!notes.isEmpty()) {
      out.append('\n');
      for (String n : notes) {
        out.append("- ").append(n).append('\n');
      }
    }
    return out.toString();
  }

  public String json() {
    Json json = new Json();
    json.open('{')
        .key("benchmark")
        .value(benchmark)
        .key("title")
        .value(title)
        .key("figures")
        .open('{');
    for (Figure f : figures) {
      json.key(f.key()).value(f.value());
    }
    json.close('}').key("units").open('{');
    for (Figure f : figures) {
      if (!f.unit().isEmpty()) {
        json.key(f.key()).value(f.unit());
      }
    }
    json.close('}');
    for (Table t : tables) {
      json.key(t.key()).open('[');
      for (List<Object> row : t.rows()) {
        json.open('{');
        for (int i = 0; i < t.columns().size(); i++) {
          json.key(t.columns().get(i)).value(row.get(i));
        }
        json.close('}');
      }
      json.close(']');
    }
    json.key("notes").open('[');
    for (String n : notes) {
      json.value(n);
    }
    json.close(']').key("series").open('{');
    for (Series s : series.values()) {
      json.key(s.name()).open('[');
      for (double[] p : s.points()) {
        json.open('[').value(p[0]).value(p[1]).close(']');
      }
      json.close(']');
    }
    json.close('}').close('}');
    return json.toString();
  }

  static String format(Object value) {
    if (value instanceof Double d) {
      double a = Math.abs(d);
      return a >= 100
          ? String.format(Locale.ROOT, "%,.0f", d)
          : a >= 1 ? String.format(Locale.ROOT, "%.2f", d) : String.format(Locale.ROOT, "%.3f", d);
    }
    if (value instanceof Long || value instanceof Integer) {
      return String.format(Locale.ROOT, "%,d", ((Number) value).longValue());
    }
    return String.valueOf(value);
  }
}
