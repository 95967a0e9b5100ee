package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;

/**
 * {@code SHOW [FULL] PROCESSLIST} and {@code information_schema.PROCESSLIST}: the relay's logged-in
 * connections ({@link Connections}), with MySQL's or MariaDB's columns and wording. A dump
 * connection's Command is {@code Binlog Dump} or (MySQL, for COM_BINLOG_DUMP_GTID) {@code Binlog
 * Dump GTID}; its State is the server's for the same situation ({@code Source has sent all binlog
 * to replica; waiting for more updates} while caught up, {@code Sending binlog event to replica}
 * while sending; MariaDB says master and slave), or {@code Paused by binlog-relay} for a dump
 * paused through the admin API. The connection asking shows as {@code Query} with its statement.
 * Info is cut to 100 characters without FULL, as on the servers. MariaDB's extra columns (memory,
 * rows, query id, thread id) are 0: the relay does not measure them per connection. Stateless.
 */
final class ProcessListTables {
  private static final int SHORT_INFO = 100;

  private ProcessListTables() {}

  /** SHOW [FULL] PROCESSLIST. */
  static ResultTable show(Columns c, List<ProcessInfo> processes, boolean full, boolean mariadb) {
    List<ColumnDefinition> cols =
        new ArrayList<>(
            List.of(
                ColumnDefinition.computed(
                    "Id",
                    ColumnDefinition.BINARY,
                    mariadb ? 11 : 22,
                    ColumnType.LONGLONG,
                    ColumnDefinition.NOT_NULL_FLAG
                        | ColumnDefinition.BINARY_FLAG
                        | ColumnDefinition.NUM_FLAG,
                    0),
                c.text("User", mariadb ? 384 : 96, true),
                c.text("Host", mariadb ? 192 : 765, true),
                c.text("db", 192, false),
                c.text("Command", 48, true),
                ColumnDefinition.computed(
                    "Time",
                    ColumnDefinition.BINARY,
                    mariadb ? 7 : 8,
                    ColumnType.LONG,
                    ColumnDefinition.NOT_NULL_FLAG
                        | ColumnDefinition.BINARY_FLAG
                        | ColumnDefinition.NUM_FLAG,
                    0),
                c.text("State", 90, false),
                full ? c.userString("Info") : c.text("Info", 300, false)));
    if (mariadb) {
      cols.add(
          ColumnDefinition.computed(
              "Progress",
              ColumnDefinition.BINARY,
              7,
              ColumnType.DOUBLE,
              ColumnDefinition.NOT_NULL_FLAG
                  | ColumnDefinition.BINARY_FLAG
                  | ColumnDefinition.NUM_FLAG,
              3));
    }
    List<List<String>> rows = new ArrayList<>();
    for (ProcessInfo p : processes) {
      String info =
          p.info() == null || full || p.info().length() <= SHORT_INFO
              ? p.info()
              : p.info().substring(0, SHORT_INFO);
      List<String> row = new ArrayList<>(List.of(Long.toString(p.id()), p.user(), p.host()));
      row.add(p.database());
      row.addAll(List.of(command(p, mariadb), Long.toString(p.seconds())));
      row.add(state(p, mariadb));
      row.add(info);
      if (mariadb) {
        row.add("0.000");
      }
      rows.add(row);
    }
    return new ResultTable(cols, rows);
  }

  /** information_schema.PROCESSLIST. */
  static ResultTable table(Columns c, List<ProcessInfo> processes, boolean mariadb) {
    List<ColumnDefinition> cols =
        new ArrayList<>(
            List.of(
                schemaColumn("ID", ColumnType.LONGLONG, mariadb ? 4 : 22, true, !mariadb),
                c.text("USER", mariadb ? 384 : 96, true),
                c.text("HOST", mariadb ? 192 : 783, true),
                c.text("DB", 192, false),
                c.text("COMMAND", 48, true),
                schemaColumn("TIME", ColumnType.LONG, 7, true, false),
                c.text("STATE", 192, false),
                c.userString("INFO")));
    if (mariadb) {
      cols.addAll(
          List.of(
              decimal("TIME_MS", 24),
              schemaColumn("STAGE", ColumnType.TINY, 2, true, false),
              schemaColumn("MAX_STAGE", ColumnType.TINY, 2, true, false),
              decimal("PROGRESS", 9),
              schemaColumn("MEMORY_USED", ColumnType.LONGLONG, 7, true, false),
              schemaColumn("MAX_MEMORY_USED", ColumnType.LONGLONG, 7, true, false),
              schemaColumn("EXAMINED_ROWS", ColumnType.LONG, 7, true, false),
              schemaColumn("QUERY_ID", ColumnType.LONGLONG, 4, true, false),
              c.userString("INFO_BINARY"),
              schemaColumn("TID", ColumnType.LONGLONG, 4, true, false)));
    }
    List<List<String>> rows = new ArrayList<>();
    for (ProcessInfo p : processes) {
      List<String> row = new ArrayList<>(List.of(Long.toString(p.id()), p.user(), p.host()));
      row.add(p.database());
      row.addAll(List.of(command(p, mariadb), Long.toString(p.seconds())));
      row.add(state(p, mariadb));
      row.add(p.info());
      if (mariadb) {
        row.addAll(
            List.of(
                String.format(Locale.ROOT, "%.3f", p.millis() / 1.0),
                "0",
                "0",
                "0.000",
                "0",
                "0",
                "0",
                "0"));
        row.add(p.info());
        row.add("0");
      }
      rows.add(row);
    }
    return new ResultTable(cols, rows);
  }

  private static ColumnDefinition schemaColumn(
      String name, ColumnType type, long length, boolean notNull, boolean unsigned) {
    return ColumnDefinition.computed(
        name,
        ColumnDefinition.BINARY,
        length,
        type,
        (notNull ? ColumnDefinition.NOT_NULL_FLAG : 0)
            | (unsigned ? ColumnDefinition.UNSIGNED_FLAG : 0)
            | ColumnDefinition.NUM_FLAG,
        0);
  }

  private static ColumnDefinition decimal(String name, long length) {
    return ColumnDefinition.computed(
        name,
        ColumnDefinition.BINARY,
        length,
        ColumnType.NEWDECIMAL,
        ColumnDefinition.NOT_NULL_FLAG | ColumnDefinition.NUM_FLAG,
        3);
  }

  static String command(ProcessInfo p, boolean mariadb) {
    switch (p.activity()) {
      case SLEEP:
        return "Sleep";
      case QUERY:
        return "Query";
      default:
        return p.gtidDump() && !mariadb ? "Binlog Dump GTID" : "Binlog Dump";
    }
  }

  static String state(ProcessInfo p, boolean mariadb) {
    String source = mariadb ? "master" : "source";
    String replica = mariadb ? "slave" : "replica";
    switch (p.activity()) {
      case SLEEP:
        return "";
      case QUERY:
        return mariadb ? "starting" : "executing";
      case DUMP_STARTING:
        return "Starting";
      case DUMP_SENDING:
        return "Sending binlog event to " + replica;
      case DUMP_WAITING:
        return (mariadb ? "Master" : "Source")
            + " has sent all binlog to "
            + replica
            + "; waiting for more updates";
      case DUMP_PAUSED:
        return "Paused by binlog-relay";
      default:
        return source;
    }
  }
}
