package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The primary's global variables that the relay passes on to its replicas because they describe the events it
 * serves, as read when a connection to the primary was set up: {@code binlog_row_metadata}, which says whether
 * TABLE_MAP events carry column names and other optional metadata (python-mysql-replication uses that metadata
 * only when the server says {@code FULL}). A variable the primary does not have (MySQL before 8.0.1, MariaDB
 * before 10.5) is absent. Immutable.
 *
 * @param values by lower-case name
 */
public record PrimaryVariables(Map<String, String> values) {
  /** The variables read, lower case. */
  public static final List<String> MIRRORED = List.of("binlog_row_metadata");

  /** Before any connection: nothing known. */
  public static final PrimaryVariables NONE = new PrimaryVariables(Map.of());

  public PrimaryVariables {
    values = Map.copyOf(values);
  }

  /** The primary's value of {@code name} (any case); empty if it was not read or the primary lacks it. */
  public Optional<String> value(String name) {
    return Optional.ofNullable(values.get(name.toLowerCase(Locale.ROOT)));
  }

  /** Reads {@link #MIRRORED} on {@code connection} with one {@code SHOW GLOBAL VARIABLES}. */
  static PrimaryVariables read(PrimaryConnection connection) throws IOException {
    String names = MIRRORED.stream().map(n -> "'" + n + "'").collect(Collectors.joining(", "));
    ResultRows rows = connection.query("SHOW GLOBAL VARIABLES WHERE Variable_name IN (" + names + ")");
    Map<String, String> values = new TreeMap<>();
    for (int i = 0; i < rows.rows().size(); i++) {
      String value = rows.value(i, "Value");
      if (value != null) {
        values.put(rows.value(i, "Variable_name").toLowerCase(Locale.ROOT), value);
      }
    }
    return new PrimaryVariables(values);
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
