package org.binlogrelay.bench.stream;

import java.util.Objects;

/**
 * A place in a source's binlog: a file name such as {@code binlog.000042} and a byte offset in it.
 * Positions of one source compare by the file's sequence number (the digits after the last dot),
 * then the offset. {@link #packed()} squeezes both into one long so that a reading thread can
 * publish its position with one write. Immutable.
 *
 * @param file the file name
 * @param offset the offset (4 is the first event)
 */
public record BinlogPosition(String file, long offset) implements Comparable<BinlogPosition> {
  private static final int OFFSET_BITS = 40;

  public BinlogPosition {
    Objects.requireNonNull(file, "file");
    if (offset < 0 || offset >= 1L << OFFSET_BITS) {
      throw new IllegalArgumentException("offset " + offset + " is outside 0..2^40");
    }
  }

  /** Parses {@code FILE:POS}, e.g. {@code binlog.000003:4}. */
  public static BinlogPosition parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("'" + text + "' is not FILE:POS (e.g. binlog.000001:4)");
    }
    try {
      return new BinlogPosition(
          text.substring(0, colon), Long.parseLong(text.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "'" + text + "': the position after ':' is not a number", e);
    }
  }

  /** The file's sequence number: the digits after the last dot; 0 if there are none. */
  public static long sequence(String file) {
    int dot = file.lastIndexOf('.');
    long n = 0;
    for (int i = dot + 1; i < file.length(); i++) {
      char c = file.charAt(i);
      if (c < '0' || c > '9' || n > 1L << 22) {
        return 0;
      }
      n = n * 10 + (c - '0');
    }
    return n;
  }

  /** Sequence number and offset in one long, ordered as the positions are. */
  public long packed() {
    return pack(file, offset);
  }

  /** {@link #packed()} without making a position. */
  public static long pack(String file, long offset) {
    return sequence(file) << OFFSET_BITS | offset;
  }

  @Override
  public int compareTo(BinlogPosition o) {
    return Long.compare(packed(), o.packed());
  }

  @Override
  public String toString() {
    return file + ":" + offset;
  }
}
