package org.binlogrelay.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.EventHeader;

/**
 * One binlog file open for appending. The file is exactly the primary's: the magic number {@code fe
 * 62 69 6e}, then events back to back, each at the offset the primary wrote it at. Like the server,
 * the store keeps {@link EventHeader#LOG_EVENT_BINLOG_IN_USE_F} set in the FORMAT_DESCRIPTION's
 * flags (file offset 21: the 4-byte magic number, then the header's flags at 17) while the file is
 * open and clears it when the primary closed the file cleanly, or when it abandoned the file in a
 * crash and its flavour's crash recovery clears it ({@link BinlogFlavor#clearsInUseAfterCrash()});
 * the event's CRC32 is computed with that bit masked (by the servers and by {@code
 * BinlogChecksum}), so both states verify.
 *
 * <p>Appends are buffered: the writer {@link #append}s a transaction's events into memory and
 * {@link #flush}es them at the transaction's end with one positional write, instead of one system
 * call per event. An event of {@value #DIRECT_WRITE_BYTES} bytes or more is written at once (after
 * what is buffered), where a system call is small next to copying its bytes, and a transaction of
 * many events is written in parts of at most {@value #MAX_BUFFER_BYTES} bytes. Nothing of this
 * shows: readers never read past the readable boundary and the syncer is never told of a boundary
 * before the bytes up to it are written, and both are only ever transaction boundaries, where the
 * writer flushes. {@link #size()} counts the buffered bytes; {@link #writtenSize()} only what
 * reached the file.
 *
 * <p>Threads: the writer appends, flushes and truncates; the syncer forces and clears the in-use
 * flag; the sizes are volatile. {@link FileChannel} allows a force concurrent with writes (the
 * force covers what was written before it began). Readers use their own channels ({@link
 * BinlogStore#openFile}).
 */
final class BinlogFile implements Closeable {
  /** Offset of the FORMAT_DESCRIPTION's flags byte holding the in-use bit. */
  static final long IN_USE_FLAG_OFFSET =
      BinlogFileName.FIRST_EVENT_OFFSET + EventHeader.FLAGS_OFFSET;

  /**
   * The most a transaction's unwritten bytes take in memory; a larger transaction is written in
   * parts.
   */
  static final int MAX_BUFFER_BYTES = 1 << 20;

  /** Events this big are not copied into the buffer but written directly. */
  static final int DIRECT_WRITE_BYTES = 128 << 10;

  private static final int FIRST_BUFFER_BYTES = 16 << 10;

  private final String name;
  private final FileChannel channel;

  /** The end of the file including the buffered bytes: where the next event goes. */
  private volatile long size;

  /** The end of what was written to the file. */
  private volatile long writtenSize;

  private volatile boolean closed;
  private volatile boolean forceFailed;
  private byte[] buffer;
  private int buffered;
  private long lastWriteAt;
  private int lastWriteLength;

  private BinlogFile(String name, FileChannel channel, long size) {
    this.name = name;
    this.channel = channel;
    this.size = size;
    this.writtenSize = size;
  }

  /**
   * Creates {@code name} (which must not exist) and writes the magic number. Not forced. If writing
   * the magic number fails (a full disk), the file is deleted again: a failed creation leaves
   * nothing behind.
   */
  static BinlogFile create(StoreDirectory dir, String name) throws IOException {
    FileChannel ch =
        dir.open(
            name, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
    BinlogFile file = new BinlogFile(name, ch, 0);
    try {
      file.append(BinlogFileParser.MAGIC, 0, BinlogFileParser.MAGIC.length);
      file.flush();
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
   * Opens an existing file read-only, for a store that does not accept writes (opened on a full
   * disk): every write, truncation or force through it fails. {@link #size()} is the file's length
   * on disk.
   */
  static BinlogFile openForReading(StoreDirectory dir, String name) throws IOException {
    FileChannel ch = dir.open(name, StandardOpenOption.READ);
    return new BinlogFile(name, ch, ch.size());
  }

  /**
   * Reads the bytes of {@code name} from {@code from} to its end, writes them back in place, and
   * forces the file: for a syncer that failed otherwise than forcing a binlog file (after a failed
   * force of a binlog file this is not enough: on ext4 the rewritten blocks can stay unwritten
   * extents, see {@code Resumption.cutBackToDurable}). The bytes come from the page cache; if the
   * kernel dropped them and the disk holds something else, the scan that follows (recovery) finds
   * it by the events' CRC32s and cuts there. Writes no new blocks, so it works on a full disk.
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

  /** The end of the file, counting bytes appended but not flushed yet. */
  long size() {
    return size;
  }

  /** The end of what was written to the file (all of {@link #size()} after a {@link #flush()}). */
  long writtenSize() {
    return writtenSize;
  }

  /**
   * Appends {@code len} bytes at the end of the file: into the buffer, written when {@link
   * #flush()} is called or when the buffer is full (an event larger than the buffer is written at
   * once). An {@link IOException} here or in {@link #flush()} may leave part of the bytes in the
   * file: cut it back with {@link #truncate}.
   */
  void append(byte[] bytes, int offset, int len) throws IOException {
    if (buffered + len > MAX_BUFFER_BYTES || len >= DIRECT_WRITE_BYTES) {
      flush();
    }
    if (len >= DIRECT_WRITE_BYTES) {
      write(ByteBuffer.wrap(bytes, offset, len));
      size = writtenSize;
      return;
    }
    if (buffer == null || buffered + len > buffer.length) {
      int capacity = buffer == null ? FIRST_BUFFER_BYTES : buffer.length;
      while (capacity < buffered + len) {
        capacity *= 2;
      }
      byte[] grown = new byte[Math.min(capacity, MAX_BUFFER_BYTES)];
      if (buffered > 0) {
        System.arraycopy(buffer, 0, grown, 0, buffered);
      }
      buffer = grown;
    }
    System.arraycopy(bytes, offset, buffer, buffered, len);
    buffered += len;
    size += len;
  }

  /**
   * Writes the buffered bytes to the file with one positional write (more only if the kernel writes
   * less).
   */
  void flush() throws IOException {
    if (buffered > 0) {
      int n = buffered;
      buffered = 0; // on failure the bytes are dropped: the caller cuts the file back to a boundary
      write(ByteBuffer.wrap(buffer, 0, n));
    }
  }

  /** Bytes appended and not written yet. */
  int buffered() {
    return buffered;
  }

  /** Where the last write (or the one that failed) started. */
  long lastWriteAt() {
    return lastWriteAt;
  }

  /** How many bytes the last write (or the one that failed) had to write. */
  int lastWriteLength() {
    return lastWriteLength;
  }

  private void write(ByteBuffer buf) throws IOException {
    long at = writtenSize;
    lastWriteAt = at;
    lastWriteLength = buf.remaining();
    try {
      while (buf.hasRemaining()) {
        at += channel.write(buf, at);
      }
    } finally {
      writtenSize = at;
    }
  }

  /** Forces the file's bytes (and the length needed to read them) to disk; a no-op once closed. */
  void force() throws IOException {
    if (!closed) {
      try {
        channel.force(false);
      } catch (IOException | RuntimeException e) {
        forceFailed = true;
        throw e;
      }
    }
  }

  /**
   * True once a {@link #force()} failed: what it covered may not be on disk whatever reads show,
   * and a later force of the same channel may succeed without writing it (Linux reports a failed
   * writeback to a file once).
   */
  boolean forceFailed() {
    return forceFailed;
  }

  /**
   * Cuts the file to {@code length} bytes (dropping what is buffered) and forces the new length.
   * {@code length} must be written already: a transaction boundary, where the writer flushes.
   */
  void truncate(long length) throws IOException {
    if (length > writtenSize) {
      throw new IllegalArgumentException(
          "cannot truncate " + name + " of " + writtenSize + " written bytes to " + length);
    }
    buffered = 0;
    size = writtenSize;
    channel.truncate(length);
    channel.force(true);
    size = length;
    writtenSize = length;
  }

  /** Sets or clears the FORMAT_DESCRIPTION's in-use flag (a no-op for a file without one). */
  void setInUse(boolean inUse) throws IOException {
    if (writtenSize <= IN_USE_FLAG_OFFSET) {
      return;
    }
    ByteBuffer one = ByteBuffer.allocate(1);
    channel.read(one, IN_USE_FLAG_OFFSET);
    byte flags = one.get(0);
    byte updated =
        (byte)
            (inUse
                ? flags | EventHeader.LOG_EVENT_BINLOG_IN_USE_F
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
