package org.binlogrelay.server.serving;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.Optional;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.server.downstream.sql.SessionVariables;

/**
 * What a replica told the relay with user variables before it asked for a stream, read once when
 * the dump starts, with the names and precedence the servers use ({@code
 * Binlog_sender::init_checksum_alg} and {@code init_heartbeat_period} in MySQL 9, {@code
 * get_binlog_checksum_value_at_connect} and friends in MariaDB 10.11). Immutable.
 *
 * @param checksumAware the replica set {@code @master_binlog_checksum} (or MySQL's
 *     {@code @source_...}) at all: MariaDB refuses a checksummed binlog to a replica that did not
 * @param checksum what the variable says: {@link ChecksumAlgorithm#CRC32}, {@link
 *     ChecksumAlgorithm#OFF} for {@code NONE}, {@link ChecksumAlgorithm#UNDEFINED} when unset or
 *     unrecognised (MySQL then refuses a checksummed binlog). The artificial ROTATE that opens the
 *     stream is checksummed per this value.
 * @param heartbeatPeriodNanos {@code @source_heartbeat_period} / {@code @master_heartbeat_period};
 *     0 means no heartbeats
 * @param replicaUuid {@code @replica_uuid} / {@code @slave_uuid}, empty if unset
 * @param mariadbCapability {@code @mariadb_slave_capability}, 0 if unset
 * @param gtidStrictMode {@code @slave_gtid_strict_mode} (MariaDB)
 * @param gtidIgnoreDuplicates {@code @slave_gtid_ignore_duplicates} (MariaDB)
 */
public record ReplicaSettings(
    boolean checksumAware,
    ChecksumAlgorithm checksum,
    long heartbeatPeriodNanos,
    String replicaUuid,
    int mariadbCapability,
    boolean gtidStrictMode,
    boolean gtidIgnoreDuplicates) {

  /**
   * MariaDB's MARIA_SLAVE_CAPABILITY_GTID: the replica understands GTID events (10.0 and later).
   */
  public static final int MARIADB_CAPABILITY_GTID = 4;

  /** Reads the variables of a MySQL dump connection. */
  public static ReplicaSettings mysql(SessionVariables vars) {
    Optional<String> checksum = firstSet(vars, "source_binlog_checksum", "master_binlog_checksum");
    return new ReplicaSettings(
        checksum.isPresent(),
        checksumOf(checksum),
        nanos(firstSet(vars, "source_heartbeat_period", "master_heartbeat_period")),
        firstSet(vars, "replica_uuid", "slave_uuid").orElse(""),
        0,
        false,
        false);
  }

  /** Reads the variables of a MariaDB dump connection. */
  public static ReplicaSettings mariadb(SessionVariables vars) {
    Optional<String> checksum = vars.userText("master_binlog_checksum");
    return new ReplicaSettings(
        checksum.isPresent(),
        checksumOf(checksum),
        nanos(vars.userText("master_heartbeat_period")),
        "",
        (int)
            Math.min(
                Integer.MAX_VALUE, Math.max(0, integer(vars.userText("mariadb_slave_capability")))),
        integer(vars.userText("slave_gtid_strict_mode")) != 0,
        integer(vars.userText("slave_gtid_ignore_duplicates")) != 0);
  }

  private static Optional<String> firstSet(SessionVariables vars, String name, String alternative) {
    Optional<String> first = vars.userText(name);
    return first.isPresent() ? first : vars.userText(alternative);
  }

  /**
   * The servers' {@code find_type} over {NONE, CRC32}, case-insensitive; anything else is
   * undefined.
   */
  private static ChecksumAlgorithm checksumOf(Optional<String> value) {
    if (value.isEmpty()) {
      return ChecksumAlgorithm.UNDEFINED;
    }
    return switch (value.get().trim().toUpperCase(Locale.ROOT)) {
      case "NONE" -> ChecksumAlgorithm.OFF;
      case "CRC32" -> ChecksumAlgorithm.CRC32;
      default -> ChecksumAlgorithm.UNDEFINED;
    };
  }

  private static long nanos(Optional<String> value) {
    return Math.max(0, integer(value));
  }

  /**
   * {@code val_int()} of a user variable: integers as they are, decimals rounded, anything else 0.
   */
  private static long integer(Optional<String> value) {
    if (value.isEmpty()) {
      return 0;
    }
    String text = value.get().trim();
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException notAnInteger) {
      try {
        return new BigDecimal(text).setScale(0, RoundingMode.HALF_UP).longValueExact();
      } catch (NumberFormatException | ArithmeticException e) {
        return 0;
      }
    }
  }
}
