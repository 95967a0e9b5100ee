package org.binlogrelay.storage;

import java.util.Objects;

/**
 * A place in the stored binlog: a file name (as the primary names it, e.g. {@code binlog.000042})
 * and a byte offset in that file. Offset 4 is the first event of a file (after the magic number);
 * the offset of an event's end is its header's log_pos.
 *
 * <p>Positions of one store are ordered by the file's sequence number (the digits after the last
 * dot of the name, which the server increments at every rotation) and then by offset; {@link
 * #compareTo} assumes both positions belong to the same store. Immutable.
 *
 * @param file binlog file name, no directory part
 * @param offset byte offset in the file, at least 0
 */
public record Position(String file, long offset) implements Comparable<Position> {

  public Position {
    Objects.requireNonNull(file, "file");
    if (offset < 0) {
      throw new IllegalArgumentException("negative offset " + offset + " in " + file);
    }
  }

  /**
   * The {@code log_pos} an event ending at {@code endOffset} carries in its header: a 4-byte field,
   * so the end offset modulo 2^32. Files grow past 4 GiB when one transaction is that large (a
   * transaction never spans files); servers then write the truncated value, and offsets here stay
   * 64-bit.
   */
  public static long logPosOf(long endOffset) {
    return endOffset & 0xffff_ffffL;
  }

  /** The first event of {@code file}: offset 4, just after the magic number. */
  public static Position startOf(String file) {
    return new Position(file, BinlogFileName.FIRST_EVENT_OFFSET);
  }

  /** The sequence number of {@link #file()} (e.g. 42 for {@code binlog.000042}). */
  public long fileSequence() {
    return BinlogFileName.sequence(file);
  }

  /**
   * By file sequence number, then offset. Called on every boundary move, wait and hand-over to a
   * replica, so it is cheap: positions in the same file compare their offsets after an equality
   * check of the names, and names that differ are parsed without a regular expression. (A record
   * cannot cache the number in a field of its own without making it a component, which would change
   * the public constructor.)
   */
  @Override
  public int compareTo(Position other) {
    if (file.equals(other.file)) {
      return Long.compare(offset, other.offset); // the common case: no parsing at all
    }
    int byFile = Long.compare(fileSequence(), other.fileSequence());
    return byFile != 0 ? byFile : file.compareTo(other.file);
  }

  public boolean isAfter(Position other) {
    return compareTo(other) > 0;
  }

  public boolean isBefore(Position other) {
    return compareTo(other) < 0;
  }

  /** {@code binlog.000042:1234}, as the servers print a binlog coordinate. */
  @Override
  public String toString() {
    return file + ":" + offset;
  }
}
