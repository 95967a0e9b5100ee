package org.binlogrelay.e2e.checks;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerException;

/**
 * {@code CHECKSUM TABLE} of every base table of some schemas, by {@code schema.table}: the check a
 * DBA runs to compare a replica with its primary. Equal checksums from two servers of the same
 * flavour mean equal table contents; values from MySQL and MariaDB are not comparable with each
 * other.
 */
public record TableChecksums(Map<String, String> byTable) {

  public TableChecksums {
    byTable = Collections.unmodifiableMap(new TreeMap<>(byTable));
  }

  /** Checksums of every base table of {@code schemas}; empty if they have no tables. */
  public static TableChecksums of(DatabaseServer server, String... schemas) {
    if (schemas.length == 0) {
      throw new IllegalArgumentException("No schema given to checksum on " + server);
    }
    String placeholders = String.join(", ", Collections.nCopies(schemas.length, "?"));
    List<String> tables =
        server
            .queryRows(
                "SELECT CONCAT('`', REPLACE(TABLE_SCHEMA, '`', '``'), '`.`',"
                    + " REPLACE(TABLE_NAME, '`', '``'), '`') AS quoted FROM information_schema.TABLES"
                    + " WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA IN ("
                    + placeholders
                    + ")"
                    + " ORDER BY TABLE_SCHEMA, TABLE_NAME",
                (Object[]) schemas)
            .stream()
            .map(row -> row.get("quoted"))
            .toList();
    if (tables.isEmpty()) {
      return new TableChecksums(Map.of());
    }
    Map<String, String> checksums = new TreeMap<>();
    for (Map<String, String> row :
        server.queryRows("CHECKSUM TABLE " + String.join(", ", tables))) {
      if (row.get("Checksum") == null) {
        throw new ServerException(
            "CHECKSUM TABLE on " + server + " found no table " + row.get("Table"));
      }
      checksums.put(row.get("Table"), row.get("Checksum"));
    }
    return new TableChecksums(checksums);
  }

  public List<String> tables() {
    return List.copyOf(byTable.keySet());
  }

  @Override
  public String toString() {
    return byTable.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(", ", "{", "}"));
  }
}
