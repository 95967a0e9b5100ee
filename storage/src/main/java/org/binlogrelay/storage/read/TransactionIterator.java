package org.binlogrelay.storage.read;

import java.io.IOException;
import java.nio.channels.FileChannel;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.txn.MariadbTransactionBoundaries;
import org.binlogrelay.protocol.txn.MysqlTransactionBoundaries;
import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.protocol.txn.TransactionBoundaries;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException.Reason;

/**
 * The complete transactions of a file range, in order, found by the flavour's transaction tracker
 * ({@link MysqlTransactionBoundaries} or {@link MariadbTransactionBoundaries}, chosen once from the
 * store's flavour) fed with every event of the range. Used where whole transactions matter: GTID
 * skipping for auto-position and the start lookups. Every event is read whole and its CRC32
 * checked; events between transactions (FORMAT_DESCRIPTION, PREVIOUS_GTIDS, GTID_LIST, ROTATE, ...)
 * are passed over.
 *
 * <p>The range must start at a transaction boundary: offset 4, or a boundary after it, in which
 * case the file's FORMAT_DESCRIPTION at offset 4 is read first to learn the checksum algorithm and
 * body layouts. The limit may grow ({@link #limit(long)}) as more of the file becomes readable; it
 * must be a transaction boundary (the store's readable boundary always is).
 *
 * <p>Not thread-safe.
 */
public final class TransactionIterator {
  private final String file;
  private final EventCursor cursor;
  private final BinlogEventDecoder decoder;
  private final TransactionBoundaries<?> tracker;

  private TransactionIterator(
      String file,
      EventCursor cursor,
      BinlogEventDecoder decoder,
      TransactionBoundaries<?> tracker) {
    this.file = file;
    this.cursor = cursor;
    this.decoder = decoder;
    this.tracker = tracker;
  }

  /**
   * An iterator over {@code [from, limit)} of {@code file}.
   *
   * @param channel open on the file (positional reads only, so it may be shared)
   * @param flavor the store's flavour
   * @param from offset 4 or a transaction boundary after it
   * @param limit a transaction boundary at or after {@code from}
   * @param maxEventSize the largest event accepted
   */
  public static TransactionIterator open(
      String file, FileChannel channel, GtidFlavor flavor, long from, long limit, int maxEventSize)
      throws IOException {
    long first = BinlogFileName.FIRST_EVENT_OFFSET;
    if (from < first) {
      throw new IllegalArgumentException(
          file + ": transactions start at offset " + first + " or later, not " + from);
    }
    BinlogEventDecoder decoder = new BinlogEventDecoder(ChecksumAlgorithm.OFF, maxEventSize);
    EventCursor cursor = new EventCursor(file, channel, first, Math.max(limit, from), maxEventSize);
    TransactionBoundaries<?> tracker;
    if (from == first) {
      tracker = TransactionBoundaries.of(flavor, first, null);
    } else {
      BinlogEvent fde = cursor.next(decoder);
      if (fde.type() != EventType.FORMAT_DESCRIPTION) {
        throw new BinlogReadException(
            Reason.CORRUPT,
            new Position(file, first),
            file + " starts with a " + fde.header().typeName() + " event, not FORMAT_DESCRIPTION");
      }
      tracker = TransactionBoundaries.of(flavor, from, decoder.format());
      cursor.seek(from);
    }
    cursor.limit(limit);
    return new TransactionIterator(file, cursor, decoder, tracker);
  }

  /**
   * The next complete transaction, or {@code null} once the limit is reached (every event before it
   * was fed; {@link #position()} is then the limit).
   *
   * @throws BinlogReadException if the bytes are not events or the events are not well-formed
   *     transactions
   */
  public StoredTransaction next() throws IOException {
    while (cursor.hasNext()) {
      long at = cursor.position();
      BinlogEvent event = cursor.next(decoder);
      Transaction<?> done;
      try {
        done = tracker.accept(event, at);
      } catch (ProtocolException e) {
        throw new BinlogReadException(
            Reason.CORRUPT, new Position(file, at), file + ": " + e.getMessage(), e);
      }
      if (done != null) {
        return new StoredTransaction(file, done);
      }
    }
    return null;
  }

  /** Where the next event starts (after the last one fed). */
  public long position() {
    return cursor.position();
  }

  /** True if every event fed so far belongs to a complete transaction or stands alone. */
  public boolean atBoundary() {
    return tracker.atBoundary();
  }

  /** Lets the iterator read up to {@code limit}, a transaction boundary. */
  public void limit(long limit) {
    cursor.limit(limit);
  }

  public long limit() {
    return cursor.limit();
  }

  public String file() {
    return file;
  }
}
