package org.binlogrelay.protocol.gtid;

/**
 * The set of transactions a server has executed, in one flavour's terms: MySQL's {@code
 * uuid[:tag]:intervals} sets ({@link MysqlGtidSet}) or MariaDB's per-domain positions ({@link
 * MariadbGtidSet}). Chosen once per connection by flavour (STYLE.md section 4); code that only
 * needs to compare, copy or print a set uses this interface.
 *
 * <p>Implementations are mutable and not thread-safe; share a {@link #copy()}.
 */
public interface GtidSet {

  GtidFlavor flavor();

  boolean isEmpty();

  /**
   * True if every transaction in {@code other} is also in this set; {@code other} must be the same
   * flavour.
   */
  boolean containsAll(GtidSet other);

  /** An independent copy. */
  GtidSet copy();

  /**
   * The text the server prints for the same set: {@code @@gtid_executed} for MySQL,
   * {@code @@gtid_binlog_state} for MariaDB (whose {@code @@gtid_binlog_pos} is {@link
   * MariadbGtidSet#toPositionString()}).
   */
  @Override
  String toString();
}
