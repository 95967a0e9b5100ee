package org.binlogrelay.server.downstream.sql;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.binlogrelay.protocol.gtid.GtidFlavor;

/**
 * The variables whose value is the primary's, not the relay's, because they describe the events the relay passes
 * on byte for byte: {@code binlog_row_metadata} (MySQL 8.0.1+, MariaDB 10.5+), which says whether TABLE_MAP events
 * carry column names, signedness and character sets. python-mysql-replication reads it ({@code SHOW VARIABLES LIKE
 * 'BINLOG_ROW_METADATA'}) and decodes with that metadata only when it is {@code FULL}; without it, it names columns
 * {@code UNKNOWN_COL0}... and decodes binary columns as text.
 *
 * <p>Each value is read live from {@code primary}, which gives the value the upstream last read (empty while the
 * relay has not reached its primary since it started); until then the variable shows the server's default
 * ({@code MINIMAL} on MySQL, {@code NO_LOG} on MariaDB). Global only, as on both servers. Stateless; {@code
 * primary} must be thread-safe.
 */
public final class MirroredVariables {
  private MirroredVariables() {}

  /**
   * The mirrored variables of a {@code flavor} server.
   *
   * @param primary the primary's value of a variable by its lower-case name, empty if not known
   */
  public static List<SystemVariable> of(GtidFlavor flavor, Function<String, Optional<String>> primary) {
    Objects.requireNonNull(primary, "primary");
    String rowMetadataDefault = flavor == GtidFlavor.MARIADB ? "NO_LOG" : "MINIMAL";
    return List.of(SystemVariable.live("binlog_row_metadata", VariableType.STRING,
        () -> primary.apply("binlog_row_metadata").orElse(rowMetadataDefault)));
  }
}
