package org.binlogrelay.storage.read;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException.Reason;

/**
 * Cuts the events of one file into {@link EventBatch}es from event headers alone: a batch runs from
 * the cursor to the last transaction boundary within the batch size, where a boundary is the limit
 * given (the readable end, always a transaction boundary) or the start of an event that is never
 * inside a transaction ({@link #boundaryBefore}). A transaction larger than the batch size is cut
 * at event boundaries instead. Checks that the file on disk holds the whole batch before handing it
 * out.
 *
 * <p>With a buffer ({@link #next(long, ByteBuffer)}), the cutter reads the bytes ahead once into
 * the buffer, walks the event headers there and hands out a batch whose bytes stay in the buffer
 * ({@link EventBatch#inMemory()}), so that a server frames them without reading the file again. The
 * walk checks each header as {@link EventCursor} does; an event the buffer cannot hold, or a header
 * that fails a check, ends the walk, and the header-only path (which reports the failure precisely)
 * takes over at that event.
 *
 * <p>Not thread-safe: part of one reader.
 */
final class BatchCutter {
  private final SharedFile file;
  private final EventCursor cursor;
  private final int maxBatchBytes;
  private final String readerName;
  private final int maxEventSize;

  BatchCutter(
      SharedFile file, EventCursor cursor, int maxBatchBytes, String readerName, int maxEventSize) {
    this.file = file;
    this.maxEventSize = maxEventSize;
    this.cursor = cursor;
    this.maxBatchBytes = maxBatchBytes;
    this.readerName = readerName;
  }

  /** The next batch from the cursor, ending at or before {@code limit} (past the cursor). */
  EventBatch next(long limit) throws IOException {
    long start = cursor.position();
    int[] sizes = new int[16];
    int count = 0;
    long cut = -1;
    int cutCount = 0;
    cursor.limit(limit);
    while (cursor.hasNext()) {
      long at = cursor.position();
      EventHeader header = cursor.peek();
      if (at > start && boundaryBefore(header.type())) {
        cut = at;
        cutCount = count;
      }
      if (at + header.eventSize() - start > maxBatchBytes && count > 0) {
        break;
      }
      if (count == sizes.length) {
        sizes = Arrays.copyOf(sizes, count * 2);
      }
      sizes[count++] = (int) header.eventSize();
      cursor.skip();
    }
    boolean atBoundary = true;
    if (cursor.position() < limit) {
      if (cut > start) {
        cursor.seek(cut);
        count = cutCount;
      } else {
        atBoundary = boundaryBefore(cursor.peek().type());
      }
    }
    long end = cursor.position();
    long onDisk = file.channel().size();
    if (onDisk < end) {
      file.checkNotReplaced(new Position(file.name(), start), readerName);
      throw new BinlogReadException(
          Reason.TRUNCATED,
          new Position(file.name(), start),
          file.name()
              + " is "
              + onDisk
              + " bytes on disk, but the store made it readable up to "
              + end
              + ": the file was truncated under the"
              + " store; position "
              + readerName
              + " again");
    }
    return new EventBatch(file, start, end, Arrays.copyOf(sizes, count), atBoundary);
  }

  /**
   * The next batch from the cursor as {@link #next(long)} cuts it, read into {@code buffer} (from
   * index 0; its capacity, not {@code maxBatchBytes}, bounds the batch), which the batch then
   * views: the caller must leave the buffer alone until it is done with the batch. Falls back to
   * {@link #next(long)} (no bytes in memory) when the first event does not fit the buffer or fails
   * a check.
   */
  EventBatch next(long limit, ByteBuffer buffer) throws IOException {
    long start = cursor.position();
    cursor.limit(limit);
    int want = (int) Math.min(limit - start, buffer.capacity());
    ByteBuffer bytes = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    bytes.clear().limit(want);
    while (bytes.hasRemaining()) {
      if (file.channel().read(bytes, start + bytes.position()) < 0) {
        break; // shorter on disk than readable: the header-only path reports it
      }
    }
    int got = bytes.position();
    int[] sizes = SCRATCH.get();
    int count = 0;
    int at = 0;
    int cut = -1;
    int cutCount = 0;
    boolean reachedLimit = false;
    while (at + EventHeader.SIZE <= got) {
      long size = bytes.getInt(at + EventHeader.EVENT_SIZE_OFFSET) & 0xffff_ffffL;
      long end = start + at + size;
      if (size < EventHeader.SIZE
          || size > maxEventSize
          || end > limit
          || !positionFits(bytes, at, end, at > 0 || cursor.atKnownEventStart())) {
        break;
      }
      if (at > 0 && BOUNDARY_BEFORE[bytes.get(at + EventHeader.TYPE_OFFSET) & 0xff]) {
        cut = at;
        cutCount = count;
      }
      if (at + size > got) {
        break;
      }
      if (count == sizes.length) {
        sizes = Arrays.copyOf(sizes, count * 2);
        SCRATCH.set(sizes);
      }
      sizes[count++] = (int) size;
      at += (int) size;
      if (end == limit) {
        reachedLimit = true;
        break;
      }
    }
    if (count == 0) {
      return next(limit);
    }
    boolean atBoundary = true;
    if (!reachedLimit) {
      if (cut > 0) {
        at = cut;
        count = cutCount;
      } else {
        atBoundary =
            at + EventHeader.SIZE <= got
                && BOUNDARY_BEFORE[bytes.get(at + EventHeader.TYPE_OFFSET) & 0xff];
      }
    }
    cursor.seek(start + at);
    ByteBuffer view = buffer.duplicate();
    view.clear().limit(at);
    return new EventBatch(
        file, start, start + at, Arrays.copyOf(sizes, count), atBoundary, view.slice());
  }

  /**
   * The check {@link EventCursor#peek} makes of log_pos, on the raw header at {@code at}: an
   * unpositioned event (MariaDB 11.4+) is accepted where the cursor would accept it, at a known
   * event start other than a FORMAT_DESCRIPTION.
   */
  private static boolean positionFits(ByteBuffer bytes, int at, long end, boolean knownStart) {
    long logPos = bytes.getInt(at + EventHeader.LOG_POS_OFFSET) & 0xffff_ffffL;
    int flags = bytes.getShort(at + EventHeader.FLAGS_OFFSET) & 0xffff;
    return EventHeader.positionFits(
        logPos,
        flags,
        end,
        knownStart
            && (bytes.get(at + EventHeader.TYPE_OFFSET) & 0xff)
                != EventType.FORMAT_DESCRIPTION.code());
  }

  /**
   * The event sizes of the batch being cut, per thread (an event loop cuts for hundreds of readers
   * one after another): grown as batches of many small events need, and copied to the batch's own
   * array of the right length once cut. A new array per batch, grown by doubling, was the serving
   * path's largest allocation (JFR, 2,000 replicas catching up).
   */
  private static final ThreadLocal<int[]> SCRATCH = ThreadLocal.withInitial(() -> new int[64]);

  /** {@link #boundaryBefore} by event type code. */
  private static final boolean[] BOUNDARY_BEFORE = new boolean[256];

  static {
    for (EventType type : EventType.values()) {
      if (type.code() >= 0 && type.code() < 256 && boundaryBefore(type)) {
        BOUNDARY_BEFORE[type.code()] = true;
      }
    }
  }

  /**
   * True for events that never come inside a transaction, so that a transaction boundary is right
   * before them.
   */
  static boolean boundaryBefore(EventType type) {
    switch (type) {
      case GTID:
      case ANONYMOUS_GTID:
      case GTID_TAGGED:
      case MARIADB_GTID:
      case FORMAT_DESCRIPTION:
      case PREVIOUS_GTIDS:
      case GTID_LIST:
      case BINLOG_CHECKPOINT:
      case START_ENCRYPTION:
      case ROTATE:
      case STOP:
        return true;
      default:
        return false;
    }
  }
}
