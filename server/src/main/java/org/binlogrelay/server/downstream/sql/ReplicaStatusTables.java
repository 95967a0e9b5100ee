package org.binlogrelay.server.downstream.sql;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;

/**
 * {@code SHOW REPLICA STATUS} as MySQL 8.4 / 9.x and MariaDB 10.11 show it, filled from the relay's
 * own replication ({@link SourceStatus}); no row when the relay follows no primary, as on a server
 * that is no replica.
 *
 * <p>The relay's "SQL thread": it applies nothing, it writes what it receives into the binlog it
 * serves. So the applier columns describe that writer: {@code Replica_SQL_Running} is Yes while the
 * relay follows its primary (connecting or streaming) and its store accepts writes, No when it
 * stopped or the store refused writes (disk full, I/O error; then {@code Last_SQL_Errno} 1026 and
 * the store's error); {@code Exec_Source_Log_Pos} and {@code Relay_Source_Log_File} equal what was
 * read (everything received is written at once); {@code Relay_Log_File} / {@code Relay_Log_Pos} are
 * the relay's own binlog end and {@code Relay_Log_Space} its size; {@code Executed_Gtid_Set} is the
 * GTIDs of that binlog. Filters, delays and until-conditions are empty, 0 or None: the relay has
 * none. {@code Source_Retry_Count} is 0: it retries without limit. {@code Last_IO_Errno} is the
 * primary's error number when the primary refused (e.g. 1236), else 2003 for a connection that
 * failed. Column names, types and lengths are those of MySQL 9.7 and MariaDB 10.11 (captured).
 * Stateless.
 */
final class ReplicaStatusTables {
  private static final DateTimeFormatter ERROR_TIME =
      DateTimeFormatter.ofPattern("yyMMdd HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);

  /** ER_ERROR_ON_WRITE: the relay's store refused writes. */
  private static final int STORE_ERRNO = 1026;

  private ReplicaStatusTables() {}

  /** What one column is: its name, its shape, and how the row's value is taken from the status. */
  private record Column(
      String name, ColumnType type, long length, Function<SourceStatus, String> value) {}

  static ResultTable mysql(Columns c, Optional<SourceStatus> status) {
    List<Column> cols =
        List.of(
            text("Replica_IO_State", 42, s -> ioState(s, "source")),
            text("Source_Host", 768, SourceStatus::host),
            text("Source_User", 291, SourceStatus::user),
            num("Source_Port", ColumnType.LONG, 8, s -> Integer.toString(s.port())),
            num("Connect_Retry", ColumnType.LONG, 11, s -> Long.toString(s.connectRetrySeconds())),
            text("Source_Log_File", 1536, SourceStatus::sourceFile),
            num(
                "Read_Source_Log_Pos",
                ColumnType.LONGLONG,
                11,
                s -> Long.toString(s.sourcePosition())),
            text("Relay_Log_File", 1536, SourceStatus::relayFile),
            num("Relay_Log_Pos", ColumnType.LONGLONG, 11, s -> Long.toString(s.relayPosition())),
            text("Relay_Source_Log_File", 1536, SourceStatus::sourceFile),
            text("Replica_IO_Running", 9, ReplicaStatusTables::ioRunning),
            text("Replica_SQL_Running", 9, s -> sqlRunning(s) ? "Yes" : "No"),
            text("Replicate_Do_DB", 60, s -> ""),
            text("Replicate_Ignore_DB", 60, s -> ""),
            text("Replicate_Do_Table", 60, s -> ""),
            text("Replicate_Ignore_Table", 69, s -> ""),
            text("Replicate_Wild_Do_Table", 72, s -> ""),
            text("Replicate_Wild_Ignore_Table", 84, s -> ""),
            num("Last_Errno", ColumnType.LONG, 5, s -> Integer.toString(sqlErrno(s))),
            text("Last_Error", 60, ReplicaStatusTables::sqlError),
            num("Skip_Counter", ColumnType.LONG, 11, s -> "0"),
            num(
                "Exec_Source_Log_Pos",
                ColumnType.LONGLONG,
                11,
                s -> Long.toString(s.sourcePosition())),
            num("Relay_Log_Space", ColumnType.LONGLONG, 11, s -> Long.toString(s.relayBytes())),
            text("Until_Condition", 18, s -> "None"),
            text("Until_Log_File", 1536, s -> ""),
            num("Until_Log_Pos", ColumnType.LONGLONG, 11, s -> "0"),
            text("Source_SSL_Allowed", 21, s -> s.tlsAllowed() ? "Yes" : "No"),
            text("Source_SSL_CA_File", 1536, SourceStatus::tlsCa),
            text("Source_SSL_CA_Path", 1536, s -> ""),
            text("Source_SSL_Cert", 1536, SourceStatus::tlsCert),
            text("Source_SSL_Cipher", 1536, s -> ""),
            text("Source_SSL_Key", 1536, SourceStatus::tlsKey),
            num(
                "Seconds_Behind_Source",
                ColumnType.LONGLONG,
                11,
                ReplicaStatusTables::secondsBehind),
            text("Source_SSL_Verify_Server_Cert", 9, s -> s.tlsVerify() ? "Yes" : "No"),
            num("Last_IO_Errno", ColumnType.LONG, 5, s -> Integer.toString(s.lastIoErrno())),
            text("Last_IO_Error", 60, SourceStatus::lastIoError),
            num("Last_SQL_Errno", ColumnType.LONG, 5, s -> Integer.toString(sqlErrno(s))),
            text("Last_SQL_Error", 60, ReplicaStatusTables::sqlError),
            text("Replicate_Ignore_Server_Ids", 1536, s -> ""),
            num("Source_Server_Id", ColumnType.LONG, 9, s -> Long.toString(s.sourceServerId())),
            text("Source_UUID", 108, SourceStatus::sourceUuid),
            text("Source_Info_File", 3072, s -> ""),
            num("SQL_Delay", ColumnType.LONG, 11, s -> "0"),
            num("SQL_Remaining_Delay", ColumnType.LONG, 9, s -> null),
            text(
                "Replica_SQL_Running_State",
                60,
                s ->
                    sqlRunning(s)
                        ? "Replica has read all relay log; waiting for more updates"
                        : ""),
            num("Source_Retry_Count", ColumnType.LONGLONG, 11, s -> "0"),
            text("Source_Bind", 768, s -> ""),
            text(
                "Last_IO_Error_Timestamp",
                60,
                s -> errorTime(s.lastIoErrorMillis(), !s.lastIoError().isEmpty())),
            text("Last_SQL_Error_Timestamp", 60, s -> ""),
            text("Source_SSL_Crl", 1536, s -> ""),
            text("Source_SSL_Crlpath", 1536, s -> ""),
            text("Retrieved_Gtid_Set", 120, SourceStatus::retrievedGtids),
            text("Executed_Gtid_Set", 120, SourceStatus::executedGtids),
            num("Auto_Position", ColumnType.LONG, 9, s -> s.autoPosition() ? "1" : "0"),
            text("Replicate_Rewrite_DB", 72, s -> ""),
            text("Channel_Name", 576, s -> ""),
            text("Source_TLS_Version", 1536, s -> ""),
            text("Source_public_key_path", 1536, s -> ""),
            num("Get_Source_public_key", ColumnType.LONG, 9, s -> "1"),
            text("Network_Namespace", 579, s -> ""));
    return table(c, cols, status);
  }

  /**
   * MariaDB's SHOW SLAVE STATUS (and SHOW REPLICA STATUS, same columns); {@code all} adds SHOW ALL
   * SLAVES STATUS' columns.
   */
  static ResultTable mariadb(Columns c, Optional<SourceStatus> status, boolean all) {
    List<Column> cols = new ArrayList<>();
    if (all) {
      cols.add(text("Connection_name", 576, s -> ""));
      cols.add(
          text(
              "Slave_SQL_State",
              90,
              s -> sqlRunning(s) ? "Slave has read all relay log; waiting for more updates" : ""));
    }
    cols.addAll(
        List.of(
            text("Slave_IO_State", 90, s -> ioState(s, "master")),
            text("Master_Host", 2298, SourceStatus::host),
            text("Master_User", 1155, SourceStatus::user),
            num("Master_Port", ColumnType.LONG, 7, s -> Integer.toString(s.port())),
            num("Connect_Retry", ColumnType.LONG, 10, s -> Long.toString(s.connectRetrySeconds())),
            text("Master_Log_File", 1536, SourceStatus::sourceFile),
            num(
                "Read_Master_Log_Pos",
                ColumnType.LONGLONG,
                10,
                s -> Long.toString(s.sourcePosition())),
            text("Relay_Log_File", 1536, SourceStatus::relayFile),
            num("Relay_Log_Pos", ColumnType.LONGLONG, 10, s -> Long.toString(s.relayPosition())),
            text("Relay_Master_Log_File", 1536, SourceStatus::sourceFile),
            text("Slave_IO_Running", 9, ReplicaStatusTables::ioRunning),
            text("Slave_SQL_Running", 9, s -> sqlRunning(s) ? "Yes" : "No"),
            text("Replicate_Do_DB", 60, s -> ""),
            text("Replicate_Ignore_DB", 60, s -> ""),
            text("Replicate_Do_Table", 60, s -> ""),
            text("Replicate_Ignore_Table", 69, s -> ""),
            text("Replicate_Wild_Do_Table", 72, s -> ""),
            text("Replicate_Wild_Ignore_Table", 84, s -> ""),
            num("Last_Errno", ColumnType.LONG, 4, s -> Integer.toString(sqlErrno(s))),
            text("Last_Error", 60, ReplicaStatusTables::sqlError),
            num("Skip_Counter", ColumnType.LONG, 10, s -> "0"),
            num(
                "Exec_Master_Log_Pos",
                ColumnType.LONGLONG,
                10,
                s -> Long.toString(s.sourcePosition())),
            num("Relay_Log_Space", ColumnType.LONGLONG, 10, s -> Long.toString(s.relayBytes())),
            text("Until_Condition", 18, s -> "None"),
            text("Until_Log_File", 1536, s -> ""),
            num("Until_Log_Pos", ColumnType.LONGLONG, 10, s -> "0"),
            text("Master_SSL_Allowed", 21, s -> s.tlsAllowed() ? "Yes" : "No"),
            text("Master_SSL_CA_File", 1536, SourceStatus::tlsCa),
            text("Master_SSL_CA_Path", 1536, s -> ""),
            text("Master_SSL_Cert", 1536, SourceStatus::tlsCert),
            text("Master_SSL_Cipher", 1536, s -> ""),
            text("Master_SSL_Key", 1536, SourceStatus::tlsKey),
            num(
                "Seconds_Behind_Master",
                ColumnType.LONGLONG,
                10,
                ReplicaStatusTables::secondsBehind),
            text("Master_SSL_Verify_Server_Cert", 9, s -> s.tlsVerify() ? "Yes" : "No"),
            num("Last_IO_Errno", ColumnType.LONG, 4, s -> Integer.toString(s.lastIoErrno())),
            text("Last_IO_Error", 60, SourceStatus::lastIoError),
            num("Last_SQL_Errno", ColumnType.LONG, 4, s -> Integer.toString(sqlErrno(s))),
            text("Last_SQL_Error", 60, ReplicaStatusTables::sqlError),
            text("Replicate_Ignore_Server_Ids", 1536, s -> ""),
            num("Master_Server_Id", ColumnType.LONG, 8, s -> Long.toString(s.sourceServerId())),
            text("Master_SSL_Crl", 1536, s -> ""),
            text("Master_SSL_Crlpath", 1536, s -> ""),
            text("Using_Gtid", 33, s -> s.autoPosition() ? "Slave_Pos" : "No"),
            text("Gtid_IO_Pos", 90, SourceStatus::retrievedGtids),
            text("Replicate_Do_Domain_Ids", 1536, s -> ""),
            text("Replicate_Ignore_Domain_Ids", 1536, s -> ""),
            text("Parallel_Mode", 36, s -> "none"),
            num("SQL_Delay", ColumnType.LONG, 10, s -> "0"),
            num("SQL_Remaining_Delay", ColumnType.LONG, 8, s -> null),
            text(
                "Slave_SQL_Running_State",
                60,
                s -> sqlRunning(s) ? "Slave has read all relay log; waiting for more updates" : ""),
            num("Slave_DDL_Groups", ColumnType.LONGLONG, 20, s -> "0"),
            num("Slave_Non_Transactional_Groups", ColumnType.LONGLONG, 20, s -> "0"),
            num("Slave_Transactional_Groups", ColumnType.LONGLONG, 20, s -> "0"),
            text("Replicate_Rewrite_DB", 69, s -> "")));
    if (all) {
      cols.addAll(
          List.of(
              num("Retried_transactions", ColumnType.LONG, 10, s -> "0"),
              num(
                  "Max_relay_log_size",
                  ColumnType.LONGLONG,
                  10,
                  s -> s.primaryVariables().getOrDefault("max_binlog_size", "1073741824")),
              num("Executed_log_entries", ColumnType.LONG, 10, s -> Long.toString(s.events())),
              num(
                  "Slave_received_heartbeats",
                  ColumnType.LONG,
                  10,
                  s -> Long.toString(s.heartbeats())),
              new Column(
                  "Slave_heartbeat_period",
                  ColumnType.DOUBLE,
                  10,
                  s -> String.format(Locale.ROOT, "%.3f", s.heartbeatPeriodSeconds())),
              text("Gtid_Slave_Pos", 18, SourceStatus::executedGtids)));
    }
    return table(c, cols, status);
  }

  /**
   * MySQL 8.0's SHOW SLAVE STATUS: the same columns under their old names (Source becomes Master,
   * Replica becomes Slave).
   */
  static ResultTable oldNames(ResultTable table) {
    List<ColumnDefinition> renamed = new ArrayList<>();
    for (ColumnDefinition d : table.columns()) {
      String name =
          d.name().equals("Get_Source_public_key")
              ? "Get_master_public_key"
              : d.name().replace("Source", "Master").replaceFirst("^Replica_", "Slave_");
      renamed.add(
          new ColumnDefinition(
              d.schema(),
              d.table(),
              d.originalTable(),
              name,
              d.originalName(),
              d.characterSet(),
              d.columnLength(),
              d.type(),
              d.flags(),
              d.decimals()));
    }
    return new ResultTable(renamed, table.rows());
  }

  private static ResultTable table(Columns c, List<Column> cols, Optional<SourceStatus> status) {
    List<ColumnDefinition> defs = new ArrayList<>();
    for (Column col : cols) {
      if (col.type() == ColumnType.VAR_STRING) {
        defs.add(c.text(col.name(), col.length(), true));
      } else if (col.type() == ColumnType.DOUBLE) {
        defs.add(
            ColumnDefinition.computed(
                col.name(),
                ColumnDefinition.BINARY,
                col.length(),
                ColumnType.DOUBLE,
                ColumnDefinition.NOT_NULL_FLAG
                    | ColumnDefinition.BINARY_FLAG
                    | ColumnDefinition.NUM_FLAG,
                3));
      } else {
        defs.add(c.number(col.name(), col.type(), col.length()));
      }
    }
    List<List<String>> rows = new ArrayList<>();
    status.ifPresent(
        s -> {
          List<String> row = new ArrayList<>();
          for (Column col : cols) {
            row.add(col.value().apply(s));
          }
          rows.add(row);
        });
    return new ResultTable(defs, rows);
  }

  private static Column text(String name, long length, Function<SourceStatus, String> value) {
    return new Column(
        name,
        ColumnType.VAR_STRING,
        length,
        s -> {
          String v = value.apply(s);
          return v == null ? "" : v;
        });
  }

  private static Column num(
      String name, ColumnType type, long length, Function<SourceStatus, String> value) {
    return new Column(name, type, length, value);
  }

  static String ioRunning(SourceStatus s) {
    switch (s.io()) {
      case STREAMING:
        return "Yes";
      case CONNECTING:
      case RECONNECTING:
        return "Connecting";
      default:
        return "No";
    }
  }

  private static String ioState(SourceStatus s, String source) {
    switch (s.io()) {
      case STREAMING:
        return "Waiting for " + source + " to send event";
      case CONNECTING:
        return "Connecting to " + source;
      case RECONNECTING:
        return "Reconnecting after a failed " + source + " event read";
      default:
        return "";
    }
  }

  /** The relay's writer runs while it follows its primary and the store takes writes. */
  static boolean sqlRunning(SourceStatus s) {
    return s.storeAccepting()
        && (s.io() == SourceStatus.IoState.CONNECTING
            || s.io() == SourceStatus.IoState.STREAMING
            || s.io() == SourceStatus.IoState.RECONNECTING);
  }

  private static int sqlErrno(SourceStatus s) {
    return s.storeAccepting() ? 0 : STORE_ERRNO;
  }

  private static String sqlError(SourceStatus s) {
    return s.storeAccepting() ? "" : "binlog-relay cannot write its binlog: " + s.storeError();
  }

  private static String secondsBehind(SourceStatus s) {
    return s.secondsBehind() == null ? null : Long.toString((long) Math.floor(s.secondsBehind()));
  }

  private static String errorTime(long millis, boolean error) {
    return !error || millis <= 0 ? "" : ERROR_TIME.format(Instant.ofEpochMilli(millis));
  }
}
