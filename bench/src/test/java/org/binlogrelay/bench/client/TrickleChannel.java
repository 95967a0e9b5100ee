package org.binlogrelay.bench.client;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Random;

/**
 * Test side: a non-blocking channel over fixed bytes that has at most a random few thousand bytes
 * at each read, and sometimes none (as a socket with nothing waiting); -1 at the end.
 */
public final class TrickleChannel implements ReadableByteChannel {
  private final byte[] bytes;
  private final Random random;
  private int at;

  public TrickleChannel(byte[] bytes, long seed) {
    this.bytes = bytes;
    this.random = new Random(seed);
  }

  @Override
  public int read(ByteBuffer dst) {
    if (at == bytes.length) {
      return -1;
    }
    int n = Math.min(Math.min(dst.remaining(), bytes.length - at), random.nextInt(7000));
    dst.put(bytes, at, n);
    at += n;
    return n;
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public void close() {}
}
