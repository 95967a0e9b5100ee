package org.binlogrelay.storage.read;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.binlogrelay.storage.Position;

/**
 * Whole events of one stored file, {@code [start, end)}, ready to send: either without copying
 * ({@link #region()}, for plain TCP) or copied into a buffer ({@link #copyTo}, for TLS). {@link
 * #eventSizes()} gives each event's length so the server can put each event in its own protocol
 * packet.
 *
 * <p>A batch ends at a transaction boundary ({@link #endsAtTransactionBoundary()}), except when one
 * transaction alone is larger than the reader's batch size: then the batch ends at the last event
 * boundary that fits, and the rest of the transaction follows in the next batches. Nothing past the
 * store's readable boundary is ever in a batch, so a whole transaction is always readable once its
 * first byte is.
 *
 * <p>Holds the file open: {@link #close()} each batch once its bytes are sent (for a zero-copy
 * send, when the network layer releases the region). The batch stays readable until then, even
 * after the reader moved on or retention removed the file. Thread-safe: may be closed from another
 * thread than the reader's.
 */
public final class EventBatch implements ReadResult, AutoCloseable {
  private final SharedFile file;
  private final long start;
  private final long end;
  private final int[] eventSizes;
  private final boolean endsAtTransactionBoundary;
  private final ByteBuffer memory;
  private final AtomicBoolean released = new AtomicBoolean();

  /** Takes a reference on {@code file}, released by {@link #close()}. */
  EventBatch(
      SharedFile file, long start, long end, int[] eventSizes, boolean endsAtTransactionBoundary) {
    this(file, start, end, eventSizes, endsAtTransactionBoundary, null);
  }

  /**
   * As above, with the batch's bytes already read into {@code memory} (exactly {@code end - start}
   * of them).
   */
  EventBatch(
      SharedFile file,
      long start,
      long end,
      int[] eventSizes,
      boolean endsAtTransactionBoundary,
      ByteBuffer memory) {
    if (memory != null && memory.remaining() != end - start) {
      throw new IllegalArgumentException(
          "a batch of " + (end - start) + " bytes with " + memory.remaining() + " in memory");
    }
    this.memory = memory == null ? null : memory.asReadOnlyBuffer();
    file.retain();
    this.file = file;
    this.start = start;
    this.end = end;
    this.eventSizes = eventSizes;
    this.endsAtTransactionBoundary = endsAtTransactionBoundary;
  }

  /** The file's name. */
  public String file() {
    return file.name();
  }

  /** Offset of the first event. */
  public long start() {
    return start;
  }

  /** Offset just past the last event: where the reader stands after this batch. */
  public long end() {
    return end;
  }

  public long length() {
    return end - start;
  }

  public Position startPosition() {
    return new Position(file.name(), start);
  }

  public Position endPosition() {
    return new Position(file.name(), end);
  }

  public int eventCount() {
    return eventSizes.length;
  }

  /** The length of event {@code i} (0-based), header and checksum included. */
  public int eventSize(int i) {
    return eventSizes[i];
  }

  /** A copy of every event's length, in order; they add up to {@link #length()}. */
  public int[] eventSizes() {
    return eventSizes.clone();
  }

  /**
   * False only when the batch ends inside a transaction larger than the batch size (see the class
   * comment).
   */
  public boolean endsAtTransactionBoundary() {
    return endsAtTransactionBoundary;
  }

  /**
   * The batch's bytes, when the reader already read them into the caller's buffer ({@link
   * BinlogReader#poll( ByteBuffer)}): a read-only view, position 0 to {@link #length()}, valid
   * while the caller leaves that buffer alone. {@code null} when the batch was cut from headers
   * only; then {@link #copyTo} or {@link #region()} reads the file.
   */
  public ByteBuffer inMemory() {
    return memory == null ? null : memory.duplicate();
  }

  /** The bytes as a file range to send without copying; valid until {@link #close()}. */
  public FileRegionSpec region() {
    requireOpen();
    return new FileRegionSpec(file.channel(), start, length());
  }

  /**
   * Copies the batch's bytes into {@code dst} (at its position, which advances by {@link
   * #length()}).
   *
   * @throws IllegalArgumentException if {@code dst} has less room than {@link #length()}
   */
  public void copyTo(ByteBuffer dst) throws IOException {
    copyTo(dst, 0, length());
  }

  /**
   * Copies {@code length} bytes from {@code offset} bytes into the batch, for sending a large batch
   * in parts.
   */
  public void copyTo(ByteBuffer dst, long offset, long length) throws IOException {
    requireOpen();
    if (offset < 0 || length < 0 || offset + length > length()) {
      throw new IllegalArgumentException(
          "range [" + offset + ", +" + length + ") outside a batch of " + length() + " bytes");
    }
    if (dst.remaining() < length) {
      throw new IllegalArgumentException(
          "buffer has " + dst.remaining() + " bytes of room, " + length + " needed");
    }
    if (memory != null) {
      ByteBuffer source = memory.duplicate();
      source.position((int) offset).limit((int) (offset + length));
      dst.put(source);
      return;
    }
    ByteBuffer target = dst.duplicate();
    target.limit(target.position() + (int) length);
    long at = start + offset;
    while (target.hasRemaining()) {
      int n = file.channel().read(target, at);
      if (n < 0) {
        throw new EOFException(
            file.name()
                + " ends at "
                + at
                + " on disk, but the batch runs to "
                + end
                + ": the file was truncated under the store");
      }
      at += n;
    }
    dst.position(dst.position() + (int) length);
  }

  /** The batch's bytes in a new array (batches of at most 2 GiB). */
  public byte[] toByteArray() throws IOException {
    if (length() > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException(
          "batch of " + length() + " bytes does not fit an array; use copyTo in parts");
    }
    ByteBuffer buf = ByteBuffer.allocate((int) length());
    copyTo(buf);
    return buf.array();
  }

  /** Lets go of the file (once; later calls do nothing). */
  @Override
  public void close() {
    if (released.compareAndSet(false, true)) {
      file.release();
    }
  }

  private void requireOpen() {
    if (released.get()) {
      throw new IllegalStateException("batch " + this + " was already closed");
    }
  }

  @Override
  public String toString() {
    return file.name() + "[" + start + ", " + end + ") " + eventSizes.length + " events";
  }
}
