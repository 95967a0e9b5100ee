package org.binlogrelay.protocol.gtid;

import org.binlogrelay.protocol.bytes.ByteReader;

/** STUB: the API other code compiles against; being implemented. */
public final class MysqlGtidSet implements GtidSet {

  public static MysqlGtidSet empty() {
    return new MysqlGtidSet();
  }

  /** Parses {@code @@gtid_executed} text (whitespace and newlines allowed); IllegalArgumentException if malformed. */
  public static MysqlGtidSet parse(String text) {
    throw new UnsupportedOperationException("not yet");
  }

  /** Decodes the binary form of PREVIOUS_GTIDS bodies and COM_BINLOG_DUMP_GTID, untagged or tagged. */
  public static MysqlGtidSet decode(ByteReader in) {
    throw new UnsupportedOperationException("not yet");
  }

  /** The binary form: the untagged encoding when no GTID has a tag, the tagged encoding otherwise. */
  public byte[] encode() {
    throw new UnsupportedOperationException("not yet");
  }

  /** Adds one GTID; returns false if it was already present. */
  public boolean add(MysqlGtid gtid) {
    throw new UnsupportedOperationException("not yet");
  }

  /** Adds every GTID of {@code other} to this set (union in place). */
  public void addAll(MysqlGtidSet other) {
    throw new UnsupportedOperationException("not yet");
  }

  public MysqlGtidSet union(MysqlGtidSet other) {
    throw new UnsupportedOperationException("not yet");
  }

  public MysqlGtidSet subtract(MysqlGtidSet other) {
    throw new UnsupportedOperationException("not yet");
  }

  public boolean contains(MysqlGtid gtid) {
    throw new UnsupportedOperationException("not yet");
  }

  @Override
  public GtidFlavor flavor() {
    return GtidFlavor.MYSQL;
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
  public MysqlGtidSet copy() {
    throw new UnsupportedOperationException("not yet");
  }
}
