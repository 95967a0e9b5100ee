package org.binlogrelay.e2e.servers;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One row of {@code SHOW REPLICA STATUS} (MySQL) or {@code SHOW SLAVE STATUS} (MariaDB), by column
 * name. Both flavours name the error columns {@code Last_IO_Errno}, {@code Last_IO_Error}, {@code
 * Last_SQL_Errno}, {@code Last_SQL_Error}; the thread state columns differ ({@code
 * Replica_IO_Running} / {@code Slave_IO_Running}).
 */
public record ReplicaStatus(Map<String, String> columns) {

  /** The columns worth showing in a failure message. */
  private static final Pattern INTERESTING =
      Pattern.compile(
          "(?i).*(running|errno|error|gtid|_pos|_log_file|seconds_behind|_host|_port|state).*");

  public ReplicaStatus {
    columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
  }

  public static ReplicaStatus of(DatabaseServer replica) {
    List<Map<String, String>> rows =
        replica.queryRows(replica.flavor().dialect().replicaStatusStatement());
    return new ReplicaStatus(rows.isEmpty() ? Map.of() : rows.get(0));
  }

  /** False when the server has no replication configured. */
  public boolean configured() {
    return !columns.isEmpty();
  }

  public boolean ioRunning() {
    return "Yes".equals(first("Replica_IO_Running", "Slave_IO_Running"));
  }

  public boolean sqlRunning() {
    return "Yes".equals(first("Replica_SQL_Running", "Slave_SQL_Running"));
  }

  public int lastIoErrno() {
    return number("Last_IO_Errno");
  }

  public String lastIoError() {
    return columns.getOrDefault("Last_IO_Error", "");
  }

  public int lastSqlErrno() {
    return number("Last_SQL_Errno");
  }

  public String lastSqlError() {
    return columns.getOrDefault("Last_SQL_Error", "");
  }

  /** The interesting, non-empty columns, one per line. */
  public String summary() {
    if (!configured()) {
      return "(no replication configured)";
    }
    Map<String, String> shown = new LinkedHashMap<>();
    columns.entrySet().stream()
        .filter(e -> e.getValue() != null && !e.getValue().isEmpty())
        .filter(e -> INTERESTING.matcher(e.getKey()).matches())
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> shown.put(e.getKey(), e.getValue()));
    StringBuilder text = new StringBuilder();
    shown.forEach(
        (key, value) -> text.append("  ").append(key).append(": ").append(value).append('\n'));
    return text.toString();
  }

  /**
   * The {@link #summary()}, on a line of its own: what a failed wait shows as the last value
   * observed.
   */
  @Override
  public String toString() {
    return "\n" + summary();
  }

  private String first(String... names) {
    for (String name : names) {
      if (columns.containsKey(name)) {
        return columns.get(name);
      }
    }
    return null;
  }

  private int number(String name) {
    String value = columns.get(name);
    return value == null || value.isEmpty() ? 0 : Integer.parseInt(value);
  }
}
