package org.binlogrelay.protocol.query;

import java.util.Locale;
import java.util.Objects;

/**
 * A table as a statement names it: {@code name} or {@code schema.name}, each as written (unquoted).
 * Immutable.
 *
 * @param schema the schema written before the name, null if none
 * @param name the table's name
 */
public record TableName(String schema, String name) {
  public TableName {
    Objects.requireNonNull(name, "name");
  }

  /**
   * True if this names {@code schema.table}, ignoring case (a table without schema never matches).
   */
  public boolean is(String schemaName, String tableName) {
    return schema != null
        && schema.equalsIgnoreCase(schemaName)
        && name.equalsIgnoreCase(tableName);
  }

  /** {@code schema.name} in lower case, or {@code name} alone. */
  public String qualified() {
    return (schema == null ? "" : schema.toLowerCase(Locale.ROOT) + ".")
        + name.toLowerCase(Locale.ROOT);
  }

  @Override
  public String toString() {
    return schema == null ? name : schema + "." + name;
  }
}
