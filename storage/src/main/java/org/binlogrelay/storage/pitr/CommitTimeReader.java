package org.binlogrelay.storage.pitr;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.protocol.txn.TransactionBoundaries;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.OpenedFile;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException;
import org.binlogrelay.storage.read.BinlogReadException.Reason;
import org.binlogrelay.storage.read.EventCursor;
import org.binlogrelay.storage.tier.ArchiveFetchPending;

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
  private final OpenedFile opened;
  private final EventCursor cursor;
  private final BinlogEventDecoder decoder;
  private final TransactionBoundaries<?> tracker;
  private final PitrFlavor flavor;
  private long commitMicros;

  private CommitTimeReader(String file, OpenedFile opened, BinlogSource source) {
    this.file = file;
    this.opened = opened;
    long first = BinlogFileName.FIRST_EVENT_OFFSET;
    int maxEventSize = source.maxEventSize();
    this.decoder = new BinlogEventDecoder(ChecksumAlgorithm.OFF, maxEventSize);
    this.cursor =
        new EventCursor(file, opened.channel(), first, source.readableLength(file), maxEventSize);
    this.tracker = TransactionBoundaries.of(source.flavor(), first, null);
    this.flavor = PitrFlavor.of(source.flavor());
  }

  /**
   * Opens {@code file} of {@code source}; an archived file whose local copy is being fetched is
   * waited for, up to {@code fetchTimeout}.
   */
  static CommitTimeReader open(BinlogSource source, String file, Duration fetchTimeout)
      throws IOException {
    return new CommitTimeReader(file, openWaiting(source, file, fetchTimeout), source);
  }

  /**
   * Opens {@code file}, waiting (up to {@code fetchTimeout}) for an archived file's fetch: a stop
   * point or a download needs the bytes, not a retry later.
   *
   * @throws IOException if the file cannot be opened, the fetch failed or did not finish in time
   */
  static OpenedFile openWaiting(BinlogSource source, String file, Duration fetchTimeout)
      throws IOException {
    long deadline = System.nanoTime() + fetchTimeout.toNanos();
    while (true) {
      try {
        return source.open(file);
      } catch (ArchiveFetchPending pending) {
        long left = deadline - System.nanoTime();
        try {
          pending.fetch().get(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
          throw new IOException(
              "could not fetch " + file + " from the archive: " + e.getCause().getMessage(),
              e.getCause());
        } catch (TimeoutException e) {
          throw new IOException(
              "fetching " + file + " from the archive took longer than " + fetchTimeout, e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while fetching " + file);
        }
      }
    }
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
    opened.close();
  }
}
