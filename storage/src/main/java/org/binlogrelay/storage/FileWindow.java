package org.binlogrelay.storage;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A sliding read buffer over a file channel, so that scanning a file event by event costs one read
 * per megabyte rather than two per event. {@link #load} makes a byte range available in {@link
 * #buffer()}; the bytes stay valid until the next call. Not thread-safe.
 */
final class FileWindow {
  private static final int DEFAULT_CAPACITY = 1 << 20;

  private final FileChannel channel;
  private final long limit;
  private byte[] buffer = new byte[DEFAULT_CAPACITY];
  private long start;
  private int length;
  private long bytesRead;

  /** Reads at most up to {@code limit} (the file length, or a readable boundary). */
  FileWindow(FileChannel channel, long limit) {
    this.channel = channel;
    this.limit = limit;
  }

  /**
   * Makes {@code [position, position + len)} available and returns its offset in {@link #buffer()}.
   *
   * @throws EOFException if the range goes past the limit
   */
  int load(long position, int len) throws IOException {
    if (position + len > limit) {
      throw new EOFException(
          "need " + len + " bytes at " + position + ", only " + (limit - position) + " left");
    }
    if (position >= start && position + len <= start + length) {
      return (int) (position - start);
    }
    if (len > buffer.length) {
      buffer = new byte[Math.max(len, buffer.length * 2)];
    }
    int want = (int) Math.min(buffer.length, limit - position);
    ByteBuffer buf = ByteBuffer.wrap(buffer, 0, want);
    while (buf.position() < len) {
      int n = channel.read(buf, position + buf.position());
      if (n < 0) {
        throw new EOFException(
            "file ends at " + (position + buf.position()) + ", expected " + limit + " bytes");
      }
    }
    start = position;
    length = buf.position();
    bytesRead += length;
    return 0;
  }

  byte[] buffer() {
    return buffer;
  }

  long bytesRead() {
    return bytesRead;
  }
}
