package org.binlogrelay.protocol.gtid;

import java.util.List;

/** STUB: the API other code compiles against; being implemented. */
public final class MariadbGtidSet implements GtidSet {

  public static MariadbGtidSet empty() {
    return new MariadbGtidSet();
  }

  /** Parses {@code 0-1-100,1-2-5} ({@code @@gtid_binlog_pos}, {@code @@gtid_binlog_state} or a connect state). */
  public static MariadbGtidSet parse(String text) {
    throw new UnsupportedOperationException("not yet");
  }

  /** Builds the state a GTID_LIST event carries. */
  public static MariadbGtidSet of(List<MariadbGtid> gtids) {
    throw new UnsupportedOperationException("not yet");
  }

  /** Records {@code gtid} as the newest of its domain (and of its domain-server pair). */
  public boolean add(MariadbGtid gtid) {
    throw new UnsupportedOperationException("not yet");
  }

  /** True if this state has reached {@code gtid} in its domain. */
  public boolean contains(MariadbGtid gtid) {
    throw new UnsupportedOperationException("not yet");
  }

  /** The full state, one entry per domain-server pair ({@code @@gtid_binlog_state} order). */
  public List<MariadbGtid> gtids() {
    throw new UnsupportedOperationException("not yet");
  }

  /** The newest GTID per domain, as {@code @@gtid_binlog_pos} prints it. */
  public String toPositionString() {
    throw new UnsupportedOperationException("not yet");
  }

  @Override
  public GtidFlavor flavor() {
    return GtidFlavor.MARIADB;
  }

  @Override
  public boolean isEmpty() {
    throw new UnsupportedOperationException("not yet");
  }

  @Override
  public boolean containsAll(GtidSet other) {
    throw new UnsupportedOperationException("not yet");
  }

  @Override
  public MariadbGtidSet copy() {
    throw new UnsupportedOperationException("not yet");
  }
}
