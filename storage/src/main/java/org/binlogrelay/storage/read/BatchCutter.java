package org.binlogrelay.storage.read;

import java.io.IOException;
import java.util.Arrays;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException.Reason;

/**
 * Cuts the events of one file into {@link EventBatch}es from event headers alone: a batch runs from the
 * cursor to the last transaction boundary within the batch size, where a boundary is the limit given (the
 * readable end, always a transaction boundary) or the start of an event that is never inside a transaction
 * ({@link #boundaryBefore}). A transaction larger than the batch size is cut at event boundaries instead. Checks
 * that the file on disk holds the whole batch before handing it out.
 *
 * <p>Not thread-safe: part of one reader.
 */
final class BatchCutter {
  private final SharedFile file;
  private final EventCursor cursor;
  private final int maxBatchBytes;
  private final String readerName;

  BatchCutter(SharedFile file, EventCursor cursor, int maxBatchBytes, String readerName) {
    this.file = file;
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
      throw new BinlogReadException(Reason.TRUNCATED, new Position(file.name(), start), file.name() + " is " + onDisk
          + " bytes on disk, but the store made it readable up to " + end + ": the file was truncated under the"
          + " store; position " + readerName + " again");
    }
    return new EventBatch(file, start, end, Arrays.copyOf(sizes, count), atBoundary);
  }

  /** True for events that never come inside a transaction, so that a transaction boundary is right before them. */
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
