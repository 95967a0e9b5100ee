package org.binlogrelay.storage.read;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreFailedException;
import org.binlogrelay.storage.read.BinlogReadException.Reason;
import org.binlogrelay.storage.read.ReaderRegistry.Registration;
import org.binlogrelay.storage.tier.ArchiveFetchPending;

/**
 * Tails the store for one replica: hands out the stored events from a start position up to the
 * store's readable boundary, never past it, and follows the binlog across files. Like MySQL's dump
 * thread reading up to its "safe read boundary", it needs no lock with the writer: the boundary
 * ({@link BinlogSource#readable()}) is a published position that only moves forward, to transaction
 * boundaries.
 *
 * <h2>Reading</h2>
 *
 * {@link #poll()} never blocks on the writer: it returns what is readable now ({@link EventBatch},
 * {@link Skipped}, {@link FileChange}) or {@link CaughtUp}. An event-loop server then waits with
 * {@link #whenReadable()}, a future completed by the store's thread when the boundary passes the
 * reader; a thread-per-replica server uses {@link #read(Duration)}, which blocks on the same
 * future. An idle reader costs no CPU either way: nothing polls.
 *
 * <p>At the end of a file that is complete (the readable boundary is in a later file), the reader
 * opens the next file in the store's serving order and reports a {@link FileChange}; the next batch
 * starts with that file's FORMAT_DESCRIPTION at offset 4.
 *
 * <h2>Tiers</h2>
 *
 * Over a {@link org.binlogrelay.storage.tier.TieredBinlog} the next file may be archived and not
 * fetched yet ({@link ArchiveFetchPending}): the reader then returns {@link CaughtUp} at the end of
 * the file it finished, and {@link #whenReadable()} completes when the fetch is over; the next
 * {@link #poll()} opens the file and reports the {@link FileChange} as between two local files. A
 * fetch that failed is a {@link BinlogReadException} ({@link Reason#REMOVED}) saying so. Opening a
 * reader in an archived file that is not fetched yet throws {@link ArchiveFetchPending} from {@link
 * #open}: wait for its fetch and open again.
 *
 * <h2>Batches</h2>
 *
 * Without a {@link TransactionFilter} the reader only reads event headers: a batch ends at the last
 * transaction boundary within {@link ReaderOptions#maxBatchBytes()}, where a boundary is the
 * readable end, or the start of an event that cannot be inside a transaction (a GTID event, or
 * FORMAT_DESCRIPTION, PREVIOUS_GTIDS, GTID_LIST, BINLOG_CHECKPOINT, START_ENCRYPTION, ROTATE,
 * STOP). With a filter (GTID auto-position), every event is read and fed to the flavour's
 * transaction tracker ({@link TransactionIterator}) until the filter says no transaction of the
 * file can match any more.
 *
 * <h2>Failures</h2>
 *
 * The reader checks every event header it passes (see {@link EventCursor}) and the file it reads: a
 * file shorter than the store says or than the reader's position, a file recreated under its name,
 * a next file already purged, bytes that are not events: each is a {@link BinlogReadException}
 * saying which, never garbage. A reader positioned inside an event fails at its first {@link
 * #poll()}.
 *
 * <p>Not thread-safe: one reader per replica session, used by one thread at a time. Batches may be
 * closed from any thread.
 */
public final class BinlogReader implements Closeable {
  private final BinlogSource store;
  private final ReaderOptions options;
  private final int maxEventSize;
  private final TransactionFilter filter;
  private final Registration registration;
  private SharedFile file;
  private EventCursor cursor;
  private BatchCutter batches;
  private FilteredRange filtered;
  private long verifiedLength;
  private ArchiveFetchPending pendingNext;
  private boolean closed;

  private BinlogReader(BinlogSource store, ReaderOptions options, Registration registration) {
    this.store = store;
    this.options = options;
    this.maxEventSize = store.maxEventSize();
    this.filter = options.filter();
    this.registration = registration;
  }

  /**
   * Opens a reader at {@code start}, which must be an event boundary of a stored file (check a
   * replica's requested position with {@code PositionLookup} first; a position inside an event
   * fails at the first {@link #poll()}). With a filter, {@code start} must be a transaction
   * boundary (the start lookups return offset 4).
   *
   * @throws BinlogReadException with {@link Reason#REMOVED} if the file is not (or no longer)
   *     stored
   * @throws ArchiveFetchPending if the file is archived and its copy is being fetched: open the
   *     reader again once the fetch completes
   * @throws IllegalArgumentException if the offset is below 4 or past the readable part of the file
   */
  public static BinlogReader open(BinlogSource store, Position start, ReaderOptions options)
      throws IOException {
    if (start.offset() < BinlogFileName.FIRST_EVENT_OFFSET) {
      throw new IllegalArgumentException("a reader starts at offset 4 or later, not " + start);
    }
    ReaderRegistry registry = options.registry();
    Registration registration = registry == null ? null : registry.register(options.name(), start);
    BinlogReader reader = new BinlogReader(store, options, registration);
    try {
      long readable;
      try {
        readable = store.readableLength(start.file());
      } catch (NoSuchElementException e) {
        throw new BinlogReadException(
            Reason.REMOVED,
            start,
            start.file() + " is not stored (any more); position " + options.name() + " again",
            e);
      }
      if (start.offset() > readable) {
        throw new IllegalArgumentException(
            start
                + " is past the readable part of "
                + start.file()
                + " ("
                + readable
                + " bytes); check requested positions with PositionLookup");
      }
      reader.openFile(start.file(), start.offset());
      return reader;
    } catch (IOException | RuntimeException e) {
      reader.close();
      throw e;
    }
  }

  /** Where the next byte handed out starts. */
  public Position position() {
    return new Position(file.name(), cursor.position());
  }

  /** The reader's name (from its options). */
  public String name() {
    return options.name();
  }

  /**
   * What is readable now, without waiting: the next batch, skipped transactions or file change, or
   * {@link CaughtUp}. Close each {@link EventBatch} once sent.
   */
  public ReadResult poll() throws IOException {
    return poll(null);
  }

  /**
   * As {@link #poll()}, but a batch cut from headers (no {@link TransactionFilter} at work) is read
   * into {@code buffer} at once, up to its capacity, and keeps its bytes there ({@link
   * EventBatch#inMemory()}): one read of the file for both cutting and sending. The caller leaves
   * the buffer alone until it is done with the batch. A direct buffer saves the JDK's copy through
   * a temporary one. {@code null} is {@link #poll()}.
   */
  public ReadResult poll(ByteBuffer buffer) throws IOException {
    requireOpen();
    ReadableExtent readable = readable();
    ReadResult result;
    if (cursor.position() < readable.length()) {
      cursor.limit(readable.length());
      if (filtered != null) {
        result = filtered.next(readable.length());
      } else {
        result =
            buffer != null
                ? batches.next(readable.length(), buffer)
                : batches.next(readable.length());
      }
      if (filtered != null && filtered.finished()) {
        filtered = null;
      }
    } else if (readable.complete()) {
      result = rotate();
    } else {
      result = new CaughtUp(position());
    }
    if (registration != null && !(result instanceof CaughtUp)) {
      registration.update(position());
    }
    return result;
  }

  /**
   * Waits up to {@code timeout} for something to read and returns it, or {@link CaughtUp} on
   * timeout. Blocks on {@link #whenReadable()}; wakes as soon as the writer publishes a boundary
   * past the reader.
   *
   * @throws StoreFailedException if the store failed while the reader waited (after everything
   *     readable was read)
   * @throws IllegalStateException if the store was closed while the reader waited
   */
  public ReadResult read(Duration timeout) throws IOException, InterruptedException {
    long deadline = store.time().nanoseconds() + timeout.toNanos();
    while (true) {
      ReadResult result = poll();
      if (!(result instanceof CaughtUp)) {
        return result;
      }
      long remaining = deadline - store.time().nanoseconds();
      if (remaining <= 0) {
        return result;
      }
      try {
        whenReadable().get(remaining, TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        return poll();
      } catch (ExecutionException e) {
        Optional<Throwable> failure = store.failure();
        String what = options.name() + " read everything readable up to " + position();
        if (failure.isPresent()) {
          throw new StoreFailedException("the binlog store failed; " + what, failure.get());
        }
        throw new IllegalStateException(
            "the binlog store stopped while " + what + " and waited for more", e.getCause());
      }
    }
  }

  /**
   * A future completed once {@link #poll()} has something other than {@link CaughtUp} to return (at
   * once if it already has); completed exceptionally if the store fails or closes first. Completed
   * on the store's writer thread (or, while the next file is being fetched from the archive, on the
   * archive's thread): hand the work to your own executor or event loop.
   */
  public CompletableFuture<Void> whenReadable() {
    requireOpen();
    if (pendingNext != null) {
      return pendingNext.whenDone();
    }
    Position next = new Position(file.name(), cursor.position() + 1);
    return store.readable().whenReached(next).thenApply(p -> null);
  }

  /**
   * Releases the file (batches still out keep it open until closed) and unregisters. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (file != null) {
      file.release();
      file = null;
    }
    if (registration != null) {
      registration.close();
    }
  }

  private void openFile(String name, long offset) throws IOException {
    SharedFile opened;
    try {
      opened = SharedFile.open(store, name);
    } catch (NoSuchFileException e) {
      throw new BinlogReadException(
          Reason.REMOVED,
          new Position(name, offset),
          name
              + " was removed before "
              + options.name()
              + " could open it (purged by retention?); position the replica again",
          e);
    }
    if (file != null) {
      file.release();
    }
    file = opened;
    cursor = new EventCursor(name, opened.channel(), offset, offset, maxEventSize);
    batches =
        new BatchCutter(opened, cursor, options.maxBatchBytes(), options.name(), maxEventSize);
    verifiedLength = offset;
    filtered =
        filter != null && filter.startFile(store.file(name).orElse(null))
            ? new FilteredRange(
                TransactionIterator.open(
                    name, opened.channel(), store.flavor(), offset, offset, maxEventSize),
                filter,
                cursor,
                batches,
                options.maxBatchBytes())
            : null;
  }

  private ReadResult rotate() throws IOException {
    String from = file.name();
    if (pendingNext != null) {
      if (!pendingNext.fetch().isDone()) {
        return new CaughtUp(position());
      }
      ArchiveFetchPending done = pendingNext;
      pendingNext = null;
      if (done.failure() != null) {
        throw fetchFailed(done);
      }
    }
    String next = nextFile(from);
    if (next == null) {
      return new CaughtUp(position());
    }
    try {
      openFile(next, BinlogFileName.FIRST_EVENT_OFFSET);
    } catch (ArchiveFetchPending pending) {
      if (pending.failure() != null) {
        throw fetchFailed(pending);
      }
      pendingNext = pending;
      return new CaughtUp(position());
    }
    return new FileChange(from, next);
  }

  private BinlogReadException fetchFailed(ArchiveFetchPending pending) {
    Throwable cause = pending.failure();
    return new BinlogReadException(
        Reason.REMOVED,
        position(),
        options.name()
            + " finished "
            + file.name()
            + ", but fetching the next file, "
            + pending.file()
            + ", from the archive failed ("
            + cause
            + "); the replica can reconnect to try again once the archive is reachable",
        cause);
  }

  /**
   * The file after {@code name} in serving order, {@code null} if there is none yet. For a file
   * retention already removed (the reader kept reading it), the file with the next sequence number,
   * which must still be stored: otherwise files the replica needs were purged under it.
   */
  private String nextFile(String name) {
    if (store.file(name).isPresent()) {
      try {
        return store.nextFile(name).orElse(null);
      } catch (NoSuchElementException removedJustNow) {
        // fall through: treat as removed
      }
    }
    String next = BinlogFileName.next(name);
    if (store.file(next).isPresent()) {
      return next;
    }
    List<FileMetadata> files = store.files();
    String oldest = files.isEmpty() ? "none" : files.get(0).name();
    throw new BinlogReadException(
        Reason.REMOVED,
        position(),
        options.name()
            + " finished "
            + name
            + ", but "
            + next
            + " and maybe later files were purged meanwhile (oldest stored: "
            + oldest
            + "); the replica misses them:"
            + " position it again, or keep readers' files with the retention policy");
  }

  /** How far the current file is readable, and whether it is complete. */
  private record ReadableExtent(long length, boolean complete) {}

  private ReadableExtent readable() throws IOException {
    String name = file.name();
    Position boundary = store.readableEnd();
    ReadableExtent readable;
    if (boundary == null || boundary.fileSequence() < BinlogFileName.sequence(name)) {
      readable = new ReadableExtent(cursor.position(), false);
    } else if (boundary.file().equals(name)) {
      readable = new ReadableExtent(boundary.offset(), false);
    } else {
      readable = new ReadableExtent(completeLength(name), true);
    }
    if (readable.length() < cursor.position()) {
      file.checkNotReplaced(position(), options.name());
      throw new BinlogReadException(
          Reason.TRUNCATED,
          position(),
          name
              + " is readable up to "
              + readable.length()
              + " only, but "
              + options.name()
              + " already read up to "
              + cursor.position()
              + ": the file was cut"
              + " under the store; position the replica again");
    }
    if (readable.length() > verifiedLength) {
      file.checkNotReplaced(position(), options.name());
      verifiedLength = readable.length();
    }
    return readable;
  }

  private long completeLength(String name) throws IOException {
    try {
      return store.readableLength(name);
    } catch (NoSuchElementException removed) {
      // Retention removed the complete file after the reader opened it; the open channel still
      // reads it whole.
      return file.channel().size();
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("reader " + options.name() + " is closed");
    }
  }

  @Override
  public String toString() {
    return options.name() + (closed ? " (closed)" : " at " + position());
  }
}
