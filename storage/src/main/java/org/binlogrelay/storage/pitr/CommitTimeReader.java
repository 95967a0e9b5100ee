package org.binlogrelay.storage.pitr;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.protocol.txn.TransactionBoundaries;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException;
import org.binlogrelay.storage.read.BinlogReadException.Reason;
import org.binlogrelay.storage.read.EventCursor;

/**
 * The complete transactions of one stored file, from offset 4 to its readable length, each with its
 * commit time: walks the events like {@link org.binlogrelay.storage.read.TransactionIterator} (the
 * flavour's transaction tracker, every event read whole and CRC-checked) and keeps, per
 * transaction, the commit timestamp of its GTID event (MySQL) or else the header timestamp of the
 * event that completed it (the XID or COMMIT: MariaDB, or a MySQL binlog older than commit
 * timestamps).
 *
 * <p>Not thread-safe; close it to close the file.
 */
final class CommitTimeReader implements Closeable {
  private final String file;
  private final FileChannel channel;
  private final EventCursor cursor;
  private final BinlogEventDecoder decoder;
  private final TransactionBoundaries<?> tracker;
  private final PitrFlavor flavor;
  private long commitMicros;

  private CommitTimeReader(String file, FileChannel channel, BinlogStore store) {
    this.file = file;
    this.channel = channel;
    long first = BinlogFileName.FIRST_EVENT_OFFSET;
    int maxEventSize = store.config().maxEventSize();
    this.decoder = new BinlogEventDecoder(ChecksumAlgorithm.OFF, maxEventSize);
    this.cursor = new EventCursor(file, channel, first, store.readableLength(file), maxEventSize);
    this.tracker = TransactionBoundaries.of(store.flavor(), first, null);
    this.flavor = PitrFlavor.of(store.flavor());
  }

  static CommitTimeReader open(BinlogStore store, String file) throws IOException {
    return new CommitTimeReader(file, store.openFile(file), store);
  }

  /** The next complete transaction, or {@code null} at the readable end. */
  CommittedTransaction next() throws IOException {
    while (cursor.hasNext()) {
      long at = cursor.position();
      BinlogEvent event = cursor.next(decoder);
      Transaction<?> done;
      try {
        long carried = flavor.commitMicros(event, decoder.format());
        if (carried > 0) {
          commitMicros = carried;
        }
        done = tracker.accept(event, at);
      } catch (ProtocolException e) {
        throw new BinlogReadException(
            Reason.CORRUPT, new Position(file, at), file + ": " + e.getMessage(), e);
      }
      if (done != null) {
        boolean exact = commitMicros > 0;
        long micros = exact ? commitMicros : event.header().timestamp() * 1_000_000L;
        commitMicros = 0;
        return new CommittedTransaction(file, done.start(), done.end(), done.gtid(), micros, exact);
      }
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
