package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.Expression;
import org.binlogrelay.protocol.query.SelectItem;
import org.binlogrelay.protocol.query.ShowFilter;
import org.binlogrelay.protocol.query.Statement;
import org.binlogrelay.protocol.query.TextResultSet;

/**
 * Runs a {@code SELECT} over a {@link ResultTable} ({@code WHERE}, the select list with {@code *}
 * and {@code COUNT(*)}, {@code ORDER BY} by column or position, {@code LIMIT [offset,] n}), and
 * applies a SHOW statement's {@code LIKE} or {@code WHERE}. Stateless.
 */
final class TableQuery {
  private TableQuery() {}

  /** The rows of a SHOW statement that its filter keeps: LIKE on the first column, WHERE on any. */
  static ResultTable filter(ResultTable table, ShowFilter filter, Evaluator evaluator) {
    if (filter instanceof ShowFilter.All) {
      return table;
    }
    List<List<String>> kept = new ArrayList<>();
    for (int i = 0; i < table.rows().size(); i++) {
      List<String> row = table.rows().get(i);
      boolean keep;
      if (filter instanceof ShowFilter.Like like) {
        keep = row.get(0) != null && like.pattern().matches(row.get(0));
      } else {
        keep = evaluator.at(table, i, true).holds(((ShowFilter.Where) filter).condition());
      }
      if (keep) {
        kept.add(row);
      }
    }
    return new ResultTable(table.columns(), kept);
  }

  /** {@code select} over {@code table}. */
  static TextResultSet select(Statement.Select select, ResultTable table, Evaluator evaluator) {
    List<Integer> matching = new ArrayList<>();
    for (int i = 0; i < table.rows().size(); i++) {
      if (select.where() == null || evaluator.at(table, i, true).holds(select.where())) {
        matching.add(i);
      }
    }
    if (select.items().stream().anyMatch(TableQuery::isCount)) {
      return count(select, table, matching, evaluator);
    }
    if (!select.orderBy().isEmpty()) {
      matching.sort(order(select, table, evaluator));
    }
    long from = Math.min(select.offset(), matching.size());
    long to =
        select.limit() < 0 ? matching.size() : Math.min(matching.size(), from + select.limit());
    List<ColumnDefinition> columns = null;
    List<List<String>> rows = new ArrayList<>();
    for (int r = (int) from; r < to; r++) {
      List<ColumnDefinition> rowColumns = new ArrayList<>();
      List<String> values = new ArrayList<>();
      project(select.items(), table, matching.get(r), evaluator, rowColumns, values);
      columns = columns == null ? rowColumns : columns;
      rows.add(values);
    }
    if (columns == null) {
      columns = new ArrayList<>();
      project(select.items(), table, -1, evaluator, columns, new ArrayList<>());
    }
    return new TextResultSet(columns, rows);
  }

  private static void project(
      List<SelectItem> items,
      ResultTable table,
      int row,
      Evaluator evaluator,
      List<ColumnDefinition> columns,
      List<String> values) {
    for (SelectItem item : items) {
      if (item.expression() instanceof Expression.AllColumns) {
        columns.addAll(table.columns());
        if (row >= 0) {
          values.addAll(table.rows().get(row));
        }
        continue;
      }
      if (row < 0) {
        columns.add(shapeOnly(item, table, evaluator));
        continue;
      }
      Evaluator.Value v =
          evaluator.at(table, row, false).value(item.expression(), item.columnName());
      columns.add(v.column());
      values.add(v.text());
    }
  }

  /** The column an item would have, for an empty result: evaluated against a row of NULLs. */
  private static ColumnDefinition shapeOnly(
      SelectItem item, ResultTable table, Evaluator evaluator) {
    List<String> nulls = new ArrayList<>();
    for (int i = 0; i < table.columns().size(); i++) {
      nulls.add(null);
    }
    ResultTable empty = new ResultTable(table.columns(), List.of(nulls));
    return evaluator.at(empty, 0, false).value(item.expression(), item.columnName()).column();
  }

  private static boolean isCount(SelectItem item) {
    return item.expression() instanceof Expression.FunctionCall f && f.name().equals("COUNT");
  }

  /** {@code SELECT COUNT(*) | COUNT(column), ... FROM t [WHERE]}: one row (no GROUP BY here). */
  private static TextResultSet count(
      Statement.Select select, ResultTable table, List<Integer> matching, Evaluator evaluator) {
    List<ColumnDefinition> columns = new ArrayList<>();
    List<String> values = new ArrayList<>();
    Columns shapes = new Columns(ColumnDefinition.BINARY);
    for (SelectItem item : select.items()) {
      if (!isCount(item)) {
        throw new StatementRefused(
            ErrorMessages.notSupportedYet("aggregate and plain columns in one SELECT"));
      }
      Expression.FunctionCall f = (Expression.FunctionCall) item.expression();
      if (f.arguments().size() != 1) {
        throw new StatementRefused(ErrorMessages.wrongParameterCount("count"));
      }
      long n = 0;
      for (int row : matching) {
        Expression argument = f.arguments().get(0);
        if (argument instanceof Expression.AllColumns
            || evaluator.at(table, row, false).value(argument, "").text() != null) {
          n++;
        }
      }
      columns.add(shapes.integerValue(item.columnName(), 21));
      values.add(Long.toString(n));
    }
    long skip = select.offset();
    boolean shown = skip == 0 && select.limit() != 0;
    return new TextResultSet(columns, shown ? List.of(values) : List.of());
  }

  private static Comparator<Integer> order(
      Statement.Select select, ResultTable table, Evaluator evaluator) {
    Comparator<Integer> order = null;
    for (Statement.Ordering o : select.orderBy()) {
      Comparator<Integer> key =
          (a, b) -> {
            UserValue va = key(o.key(), select, table, a, evaluator);
            UserValue vb = key(o.key(), select, table, b, evaluator);
            if (va.text() == null || vb.text() == null) {
              return va.text() == null ? (vb.text() == null ? 0 : -1) : 1;
            }
            return Evaluator.compare(va, vb);
          };
      if (o.descending()) {
        key = key.reversed();
      }
      order = order == null ? key : order.thenComparing(key);
    }
    return order;
  }

  /**
   * An ORDER BY key's value in a row: a 1-based position in the select list, an alias, or an
   * expression.
   */
  private static UserValue key(
      Expression key, Statement.Select select, ResultTable table, int row, Evaluator evaluator) {
    if (key instanceof Expression.Literal l && l.kind() == Expression.Literal.Kind.INTEGER) {
      int position = Integer.parseInt(l.text());
      if (position < 1 || position > select.items().size()) {
        throw new StatementRefused(ErrorMessages.unknownColumn(l.text(), "order clause"));
      }
      SelectItem item = select.items().get(position - 1);
      if (item.expression() instanceof Expression.AllColumns) {
        return table.value(row, position - 1);
      }
      return evaluator.at(table, row, false).value(item.expression(), "").value();
    }
    if (key instanceof Expression.Column c && table.indexOf(c.name()) < 0) {
      for (SelectItem item : select.items()) {
        if (item.columnName().equalsIgnoreCase(c.name())) {
          return evaluator.at(table, row, false).value(item.expression(), "").value();
        }
      }
    }
    return evaluator.at(table, row, false).value(key, "").value();
  }
}
