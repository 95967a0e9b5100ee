package org.binlogrelay.protocol.bytes;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable little-endian byte sink, the writing twin of {@link ByteReader}. Not thread-safe. */
public final class ByteWriter {
  private byte[] buf;
  private int size;

  public ByteWriter() {
    this(64);
  }

  public ByteWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  private void ensure(int extra) {
    if (size + extra > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + extra));
    }
  }

  public ByteWriter u8(int v) {
    ensure(1);
    buf[size++] = (byte) v;
    return this;
  }

  public ByteWriter u16(int v) {
    ensure(2);
    LittleEndian.put16(buf, size, v);
    size += 2;
    return this;
  }

  public ByteWriter u24(int v) {
    ensure(3);
    buf[size] = (byte) v;
    buf[size + 1] = (byte) (v >>> 8);
    buf[size + 2] = (byte) (v >>> 16);
    size += 3;
    return this;
  }

  public ByteWriter u32(long v) {
    ensure(4);
    LittleEndian.put32(buf, size, v);
    size += 4;
    return this;
  }

  /** An unsigned little-endian integer of {@code width} bytes (1 to 8). */
  public ByteWriter uint(long v, int width) {
    ensure(width);
    for (int i = 0; i < width; i++) {
      buf[size + i] = (byte) (v >>> (8 * i));
    }
    size += width;
    return this;
  }

  public ByteWriter u64(long v) {
    ensure(8);
    LittleEndian.put64(buf, size, v);
    size += 8;
    return this;
  }

  public ByteWriter u64be(long v) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      buf[size + i] = (byte) (v >>> (56 - 8 * i));
    }
    size += 8;
    return this;
  }

  /** MySQL's length-encoded integer (see {@link ByteReader#lenencInt}). */
  public ByteWriter lenencInt(long v) {
    if (v >= 0 && v < 0xfb) {
      return u8((int) v);
    }
    if (v >= 0 && v < (1 << 16)) {
      return u8(0xfc).u16((int) v);
    }
    if (v >= 0 && v < (1 << 24)) {
      return u8(0xfd).u24((int) v);
    }
    return u8(0xfe).u64(v);
  }

  public ByteWriter bytes(byte[] b) {
    return bytes(b, 0, b.length);
  }

  public ByteWriter bytes(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, buf, size, len);
    size += len;
    return this;
  }

  public ByteWriter string(String s) {
    return bytes(s.getBytes(StandardCharsets.UTF_8));
  }

  public ByteWriter nulString(String s) {
    return string(s).u8(0);
  }

  public ByteWriter lenencString(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return lenencInt(b.length).bytes(b);
  }

  /**
   * Overwrites 4 bytes at {@code offset} (for lengths and positions patched after the body is
   * known).
   */
  public ByteWriter put32At(int offset, long v) {
    if (offset < 0 || offset + 4 > size) {
      throw new IndexOutOfBoundsException("offset " + offset + " size " + size);
    }
    LittleEndian.put32(buf, offset, v);
    return this;
  }

  public int size() {
    return size;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }
}
