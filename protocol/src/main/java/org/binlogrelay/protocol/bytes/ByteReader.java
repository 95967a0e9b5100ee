package org.binlogrelay.protocol.bytes;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;

/**
 * A bounded little-endian cursor over a byte array slice, the way MySQL lays out every integer on
 * the wire and in binlog events. Every read checks the remaining length first and throws {@link
 * ProtocolException} naming the field and offset on overrun, so a bad length field can never make
 * the caller read past its slice or allocate more than the slice holds.
 *
 * <p>Not thread-safe; create one per parse.
 */
public final class ByteReader {
  private final byte[] buf;
  private final int start;
  private final int end;
  private int pos;

  public ByteReader(byte[] buf) {
    this(buf, 0, buf.length);
  }

  public ByteReader(byte[] buf, int offset, int length) {
    if (offset < 0 || length < 0 || offset > buf.length - length) {
      throw new IllegalArgumentException(
          "slice [" + offset + ", +" + length + ") outside buffer of " + buf.length + " bytes");
    }
    this.buf = buf;
    this.start = offset;
    this.end = offset + length;
    this.pos = offset;
  }

  /** Bytes left before the end of the slice. */
  public int remaining() {
    return end - pos;
  }

  /** Offset of the cursor from the start of the slice. */
  public int position() {
    return pos - start;
  }

  /** Moves the cursor to {@code offset} from the start of the slice. */
  public void position(int offset) {
    if (offset < 0 || offset > end - start) {
      throw new ProtocolException(
          "position " + offset + " outside slice of " + (end - start) + " bytes");
    }
    pos = start + offset;
  }

  public boolean hasRemaining() {
    return pos < end;
  }

  /** Throws unless at least {@code n} bytes remain; {@code what} names the field in the message. */
  public void require(long n, String what) {
    if (n < 0 || n > remaining()) {
      throw new ProtocolException(
          what
              + ": needs "
              + n
              + " bytes at offset "
              + position()
              + ", only "
              + remaining()
              + " left");
    }
  }

  public void skip(int n, String what) {
    require(n, what);
    pos += n;
  }

  public int u8(String what) {
    require(1, what);
    return buf[pos++] & 0xff;
  }

  public int u16(String what) {
    require(2, what);
    int v = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8;
    pos += 2;
    return v;
  }

  public int u24(String what) {
    require(3, what);
    int v = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8 | (buf[pos + 2] & 0xff) << 16;
    pos += 3;
    return v;
  }

  public long u32(String what) {
    require(4, what);
    long v = LittleEndian.u32(buf, pos);
    pos += 4;
    return v;
  }

  /**
   * An unsigned little-endian integer of {@code width} bytes (1 to 8); 8 bytes may come back
   * negative.
   */
  public long uint(int width, String what) {
    if (width < 1 || width > 8) {
      throw new IllegalArgumentException("width " + width);
    }
    require(width, what);
    long v = 0;
    for (int i = 0; i < width; i++) {
      v |= (buf[pos + i] & 0xffL) << (8 * i);
    }
    pos += width;
    return v;
  }

  /**
   * A 64-bit little-endian integer, raw: values above {@code Long.MAX_VALUE} come back negative.
   */
  public long u64(String what) {
    return uint(8, what);
  }

  /** A big-endian 64-bit integer (UUID halves are stored big-endian). */
  public long u64be(String what) {
    require(8, what);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = v << 8 | (buf[pos + i] & 0xffL);
    }
    pos += 8;
    return v;
  }

  /**
   * MySQL's length-encoded integer: {@code < 0xfb} in one byte, {@code 0xfc} + 2, {@code 0xfd} + 3,
   * {@code 0xfe} + 8 bytes. {@code 0xfb} (SQL NULL) and {@code 0xff} are not integers and are
   * refused.
   */
  public long lenencInt(String what) {
    int first = u8(what);
    if (first < 0xfb) {
      return first;
    }
    switch (first) {
      case 0xfc:
        return u16(what);
      case 0xfd:
        return u24(what);
      case 0xfe:
        return u64(what);
      default:
        throw new ProtocolException(
            what
                + ": 0x"
                + Integer.toHexString(first)
                + " at offset "
                + (position() - 1)
                + " is not a length-encoded integer");
    }
  }

  public byte[] bytes(int n, String what) {
    require(n, what);
    byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
    pos += n;
    return out;
  }

  /** The bytes up to the end of the slice. */
  public byte[] rest() {
    return bytes(remaining(), "rest");
  }

  /** A string of {@code n} bytes in UTF-8 (identifiers and file names are ASCII in practice). */
  public String string(int n, String what) {
    require(n, what);
    String s = new String(buf, pos, n, StandardCharsets.UTF_8);
    pos += n;
    return s;
  }

  /** A NUL-terminated string; throws if no NUL occurs before the end of the slice. */
  public String nulString(String what) {
    for (int i = pos; i < end; i++) {
      if (buf[i] == 0) {
        String s = new String(buf, pos, i - pos, StandardCharsets.UTF_8);
        pos = i + 1;
        return s;
      }
    }
    throw new ProtocolException(what + ": no NUL terminator after offset " + position());
  }

  /** A length-encoded string. */
  public String lenencString(String what) {
    long n = lenencInt(what);
    require(n, what);
    return string((int) n, what);
  }

  /**
   * The underlying array and absolute cursor, for zero-copy callers that check bounds themselves.
   */
  public byte[] array() {
    return buf;
  }

  public int arrayOffset() {
    return pos;
  }
}
