package org.binlogrelay.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.EventHeader;

/**
 * One binlog file open for appending. The file is exactly the primary's: the magic number {@code fe 62 69
 * 6e}, then events back to back, each at the offset the primary wrote it at. Like the server, the store
 * keeps {@link EventHeader#LOG_EVENT_BINLOG_IN_USE_F} set in the FORMAT_DESCRIPTION's flags (byte 21)
 * while the file is open and clears it when the primary closed the file cleanly; the event's CRC32 is
 * computed with that bit masked, so both states verify.
 *
 * <p>Threads: the writer appends and truncates; the syncer forces and clears the in-use flag; {@link
 * #size()} is volatile. {@link FileChannel} allows a force concurrent with writes (the force covers what
 * was written before it began). Readers use their own channels ({@link BinlogStore#openFile}).
 */
final class BinlogFile implements Closeable {
  /** Offset of the FORMAT_DESCRIPTION's flags byte holding the in-use bit. */
  static final long IN_USE_FLAG_OFFSET = BinlogFileName.FIRST_EVENT_OFFSET + EventHeader.FLAGS_OFFSET;

  private final String name;
  private final FileChannel channel;
  private volatile long size;
  private volatile boolean closed;

  private BinlogFile(String name, FileChannel channel, long size) {
    this.name = name;
    this.channel = channel;
    this.size = size;
  }

  /**
   * Creates {@code name} (which must not exist) and writes the magic number. Not forced. If writing the magic
   * number fails (a full disk), the file is deleted again: a failed creation leaves nothing behind.
   */
  static BinlogFile create(StoreDirectory dir, String name) throws IOException {
    FileChannel ch = dir.open(name, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    BinlogFile file = new BinlogFile(name, ch, 0);
    try {
      file.append(BinlogFileParser.MAGIC, 0, BinlogFileParser.MAGIC.length);
    } catch (IOException e) {
      try {
        file.close();
        dir.delete(name);
      } catch (IOException cleanup) {
        e.addSuppressed(cleanup); // recovery removes a file without a complete FORMAT_DESCRIPTION
      }
      throw e;
    }
    return file;
  }

  /** Opens an existing file to append at its end. */
  static BinlogFile open(StoreDirectory dir, String name) throws IOException {
    FileChannel ch = dir.open(name, StandardOpenOption.READ, StandardOpenOption.WRITE);
    return new BinlogFile(name, ch, ch.size());
  }

  /**
   * Reads the bytes of {@code name} from {@code from} to its end, writes them back in place, and forces the
   * file. After a failed force, Linux may have marked the pages clean without writing them, so a second force
   * alone would succeed and prove nothing; writing the bytes again dirties them and the force really writes
   * them. The bytes come from the page cache; if the kernel dropped them and the disk holds something else,
   * the scan that follows (recovery) finds it by the events' CRC32s and cuts there. Writes no new blocks, so it
   * works on a full disk.
   *
   * @return the number of bytes rewritten
   */
  static long rewriteFrom(StoreDirectory dir, String name, long from) throws IOException {
    try (FileChannel ch = dir.open(name, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long end = ch.size();
      ByteBuffer buf = ByteBuffer.allocate(64 << 10);
      long at = Math.min(from, end);
      while (at < end) {
        buf.clear().limit((int) Math.min(buf.capacity(), end - at));
        int n = ch.read(buf, at);
        if (n < 0) {
          break; // the file shrank under us: nothing more to rewrite
        }
        buf.flip();
        long p = at;
        while (buf.hasRemaining()) {
          p += ch.write(buf, p);
        }
        at += n;
      }
      ch.force(true);
      return Math.max(0, end - from);
    }
  }

  String name() {
    return name;
  }

  long size() {
    return size;
  }

  /** Writes {@code len} bytes at the end of the file. */
  void append(byte[] bytes, int offset, int len) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(bytes, offset, len);
    long at = size;
    while (buf.hasRemaining()) {
      at += channel.write(buf, at);
    }
    size = at;
  }

  /** Forces the file's bytes (and the length needed to read them) to disk; a no-op once closed. */
  void force() throws IOException {
    if (!closed) {
      channel.force(false);
    }
  }

  /** Cuts the file to {@code length} bytes and forces the new length. */
  void truncate(long length) throws IOException {
    if (length > size) {
      throw new IllegalArgumentException("cannot truncate " + name + " of " + size + " bytes to " + length);
    }
    channel.truncate(length);
    channel.force(true);
    size = length;
  }

  /** Sets or clears the FORMAT_DESCRIPTION's in-use flag (a no-op for a file without one). */
  void setInUse(boolean inUse) throws IOException {
    if (size <= IN_USE_FLAG_OFFSET) {
      return;
    }
    ByteBuffer one = ByteBuffer.allocate(1);
    channel.read(one, IN_USE_FLAG_OFFSET);
    byte flags = one.get(0);
    byte updated = (byte) (inUse ? flags | EventHeader.LOG_EVENT_BINLOG_IN_USE_F
        : flags & ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F);
    if (updated != flags) {
      channel.write(ByteBuffer.wrap(new byte[] {updated}), IN_USE_FLAG_OFFSET);
    }
  }

  /** Closes the channel; call after the final {@link #force()}. */
  @Override
  public void close() throws IOException {
    closed = true;
    channel.close();
  }

  @Override
  public String toString() {
    return name + "(" + size + " bytes)";
  }
}
