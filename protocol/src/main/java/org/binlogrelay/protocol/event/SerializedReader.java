package org.binlogrelay.protocol.event;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;

/**
 * Reads the variable-length integers of MySQL's {@code mysql::serialization} binary format (used by
 * GTID_TAGGED events, MySQL 8.3+). An integer takes 1 to 9 bytes, little-endian; the number of
 * trailing one bits of the first byte, plus one, is the byte count, and the value follows those
 * bits:
 *
 * <pre>
 *   bytes  first byte   value bits
 *   1      xxxxxxx0     7
 *   2      xxxxxx01     14
 *   ...
 *   8      01111111     56 (all in the 7 following bytes)
 *   9      11111111     64 (all in the 8 following bytes)
 * </pre>
 *
 * Signed integers are zigzag-mapped first: {@code x >= 0} is stored as {@code x << 1}, {@code x <
 * 0} as {@code (-(x + 1) << 1) | 1}. Every read is bounded by the underlying {@link ByteReader}.
 * Not thread-safe.
 */
final class SerializedReader {
  private final ByteReader in;

  SerializedReader(ByteReader in) {
    this.in = in;
  }

  ByteReader in() {
    return in;
  }

  /**
   * An unsigned integer of at most {@code maxValue} (use -1 for the full unsigned 64-bit range).
   */
  long unsigned(long maxValue, String what) {
    int first = in.u8(what);
    int count = Integer.numberOfTrailingZeros(~first) + 1;
    long value;
    if (count == 1) {
      value = (long) first >>> 1;
    } else {
      long rest = in.uint(count - 1, what);
      value = count == 9 ? rest : (first >>> count) | (rest << (8 - count));
    }
    if (maxValue >= 0 && Long.compareUnsigned(value, maxValue) > 0) {
      throw new ProtocolException(
          what
              + ": value "
              + Long.toUnsignedString(value)
              + " at offset "
              + (in.position() - count)
              + " exceeds "
              + maxValue);
    }
    return value;
  }

  /** A signed 64-bit integer (zigzag). */
  long signed(String what) {
    long u = unsigned(-1, what);
    return (u >>> 1) ^ -(u & 1);
  }

  /**
   * The next unsigned integer without consuming it, or -1 if the reader is exhausted or it is cut
   * short.
   */
  long peekUnsigned() {
    if (!in.hasRemaining()) {
      return -1;
    }
    int first = in.array()[in.arrayOffset()] & 0xff;
    if (Integer.numberOfTrailingZeros(~first) + 1 > in.remaining()) {
      return -1;
    }
    int at = in.position();
    long value = unsigned(-1, "field id");
    in.position(at);
    return value;
  }

  /** A string: unsigned length (at most {@code maxLength}) then that many bytes. */
  String string(int maxLength, String what) {
    long length = unsigned(maxLength, what + " length");
    return in.string((int) length, what);
  }
}
