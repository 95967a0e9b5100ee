package org.binlogrelay.protocol.event;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * Test side: writes {@code mysql::serialization} variable-length integers, the twin of {@link
 * SerializedReader}.
 */
final class SerializedWriter {
  private final ByteWriter out = new ByteWriter();

  /** Bytes an unsigned value takes: 1 + ceil((bits - 1) / 7) for 1..63 bits, 9 for 64. */
  static int size(long value) {
    int bits = 64 - Long.numberOfLeadingZeros(value);
    return (bits * 575 >> 12) + 1;
  }

  SerializedWriter unsigned(long value) {
    int count = size(value);
    out.u8((int) (((1L << (count - 1)) - 1) | (value << count)) & 0xff);
    if (count > 1) {
      long rest = count == 9 ? value : value >>> (8 - count);
      out.uint(rest, count - 1);
    }
    return this;
  }

  SerializedWriter signed(long value) {
    return unsigned((value << 1) ^ (value >> 63));
  }

  SerializedWriter string(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    unsigned(b.length);
    out.bytes(b);
    return this;
  }

  SerializedWriter raw(byte[] b) {
    out.bytes(b);
    return this;
  }

  int size() {
    return out.size();
  }

  byte[] toByteArray() {
    return out.toByteArray();
  }
}
