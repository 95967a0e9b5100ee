package org.binlogrelay.archive.upload;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import org.binlogrelay.archive.objectstore.ObjectStore;

/**
 * The bytes {@code [offset, offset + length)} of a local binlog file as an upload body: each {@link
 * #open} opens the file anew and streams from it (the client may retry), so a part is never held in
 * memory. The stream ends after {@code length} bytes and closes the file when closed. Immutable;
 * thread-safe.
 */
final class FileRegionBody implements ObjectStore.BodySource {
  /** Opens a local binlog file for reading (the store's {@code openFile}). */
  @FunctionalInterface
  interface Opener {
    FileChannel open(String name) throws IOException;
  }

  private final Opener opener;
  private final String name;
  private final long offset;
  private final long length;

  FileRegionBody(Opener opener, String name, long offset, long length) {
    this.opener = opener;
    this.name = name;
    this.offset = offset;
    this.length = length;
  }

  @Override
  public InputStream open() throws IOException {
    FileChannel channel = opener.open(name);
    try {
      channel.position(offset);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    return new FilterInputStream(Channels.newInputStream(channel)) {
      private long left = length;

      @Override
      public int read() throws IOException {
        if (left <= 0) {
          return -1;
        }
        int b = super.read();
        if (b >= 0) {
          left--;
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (left <= 0) {
          return -1;
        }
        int n = super.read(b, off, (int) Math.min(len, left));
        if (n > 0) {
          left -= n;
        }
        return n;
      }

      @Override
      public long skip(long n) throws IOException {
        long skipped = super.skip(Math.min(n, left));
        left -= skipped;
        return skipped;
      }

      @Override
      public int available() throws IOException {
        return (int) Math.min(super.available(), left);
      }

      @Override
      public boolean markSupported() {
        return false;
      }
    };
  }
}
