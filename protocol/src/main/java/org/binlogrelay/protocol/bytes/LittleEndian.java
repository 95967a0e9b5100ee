package org.binlogrelay.protocol.bytes;

/** Fixed-width little-endian reads and writes at absolute offsets; callers check bounds. */
public final class LittleEndian {
  private LittleEndian() {}

  public static int u16(byte[] b, int off) {
    return (b[off] & 0xff) | (b[off + 1] & 0xff) << 8;
  }

  public static long u32(byte[] b, int off) {
    return (b[off] & 0xffL)
        | (b[off + 1] & 0xffL) << 8
        | (b[off + 2] & 0xffL) << 16
        | (b[off + 3] & 0xffL) << 24;
  }

  public static long u64(byte[] b, int off) {
    return u32(b, off) | u32(b, off + 4) << 32;
  }

  public static void put16(byte[] b, int off, int v) {
    b[off] = (byte) v;
    b[off + 1] = (byte) (v >>> 8);
  }

  public static void put32(byte[] b, int off, long v) {
    b[off] = (byte) v;
    b[off + 1] = (byte) (v >>> 8);
    b[off + 2] = (byte) (v >>> 16);
    b[off + 3] = (byte) (v >>> 24);
  }

  public static void put64(byte[] b, int off, long v) {
    put32(b, off, v);
    put32(b, off + 4, v >>> 32);
  }
}
