package org.binlogrelay.storage;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.CorruptEventException;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writing half of {@link BinlogStore}: follows the dump stream ({@link DumpStream}), writes events into
 * the open file, tracks transactions ({@link FileTracker}), publishes each transaction boundary (readable
 * boundary, readable GTID set, syncer), rotates files, and hands checkpoints and closes to the {@link
 * Syncer} so that it never forces anything itself.
 *
 * <p>One writer thread; {@link #append} and {@link #startStream} are serialised by a lock anyway.
 */
final class StoreWriter {
  private static final Logger log = LoggerFactory.getLogger(StoreWriter.class);

  private final StoreConfig config;
  private final BinlogFlavor flavor;
  private final StoreDirectory dir;
  private final FileCatalog catalog;
  private final Syncer syncer;
  private final StoreWatch readable;
  private final ReadableState readableState;
  private final Listeners listeners;
  private final ReentrantLock lock = new ReentrantLock();
  private OpenFile open;
  private DumpStream stream;
  private String pendingNextFile;
  private volatile Throwable failure;

  StoreWriter(StoreConfig config, BinlogFlavor flavor, StoreDirectory dir, FileCatalog catalog, Syncer syncer,
      StoreWatch readable, ReadableState readableState, Listeners listeners, OpenFile tail, String pendingNextFile) {
    this.config = config;
    this.flavor = flavor;
    this.dir = dir;
    this.catalog = catalog;
    this.syncer = syncer;
    this.readable = readable;
    this.readableState = readableState;
    this.listeners = listeners;
    this.open = tail;
    this.pendingNextFile = pendingNextFile;
  }

  /** See {@link BinlogStore#startStream()}. */
  Optional<Position> startStream() throws IOException {
    lock.lock();
    try {
      requireUsable();
      if (open != null && !open.tracker.atBoundary()) {
        cutIncompleteTransaction();
      }
      if (open != null) {
        long end = open.file.size();
        stream = new DumpStream(open.name(), end, false, FileMetadata.Ending.NONE, null);
        return Optional.of(new Position(open.name(), end));
      }
      Optional<FileMetadata> last = catalog.last();
      if (last.isEmpty()) {
        stream = new DumpStream(null, 0, true, FileMetadata.Ending.NONE, pendingNextFile);
        return Optional.ofNullable(pendingNextFile).map(Position::startOf);
      }
      FileMetadata f = last.get();
      String next = f.ending() == FileMetadata.Ending.ROTATE ? f.nextFile() : pendingNextFile;
      stream = new DumpStream(f.name(), f.size(), true, f.ending(), next);
      return Optional.of(next != null ? Position.startOf(next) : new Position(f.name(), f.size()));
    } finally {
      lock.unlock();
    }
  }

  private void cutIncompleteTransaction() throws IOException {
    long boundary = open.tracker.lastBoundary();
    long size = open.file.size();
    try {
      open.file.truncate(boundary);
    } catch (IOException e) {
      throw fail(e);
    }
    log.warn("binlog store {}: cut {} bytes of {} from {}: a transaction the previous connection left"
        + " incomplete", dir, size - boundary, open.name(), boundary);
    open.tracker = flavor.newTracker(boundary, open.tracker.format(), open.tracker.gtids());
  }

  /** See {@link BinlogStore#append}. */
  Appended append(BinlogEvent event) throws IOException {
    lock.lock();
    try {
      requireUsable();
      if (stream == null) {
        throw new IllegalStateException("call startStream() before appending, and ask the primary for the"
            + " position it returns");
      }
      boolean atBoundary = open == null || open.tracker.atBoundary();
      DumpStream.Action action = stream.accept(event, atBoundary);
      if (action == DumpStream.Action.SKIP) {
        return new Appended(false, stream.expected(), false, null);
      }
      checkChecksum(event);
      if (action == DumpStream.Action.START_FILE) {
        startFile(event);
      }
      return write(event);
    } finally {
      lock.unlock();
    }
  }

  private void checkChecksum(BinlogEvent event) {
    FormatDescriptionEvent format = open == null ? null : open.tracker.format();
    boolean fde = event.type() == EventType.FORMAT_DESCRIPTION;
    if (!fde && format != null && format.eventsHaveChecksum() != event.hasChecksum()) {
      stream.fail();
      throw new ContinuityException(stream.expected(), event.header().typeName() + " event "
          + (event.hasChecksum() ? "has" : "lacks") + " a checksum but " + open.name() + " is "
          + format.checksumAlgorithm() + "; decode the stream with the file's FORMAT_DESCRIPTION");
    }
    if (event.hasChecksum() && !event.checksumMatches()) {
      stream.fail();
      throw new CorruptEventException(CorruptEventException.Reason.CHECKSUM_MISMATCH, event.offset(),
          event.header().typeName() + " event for " + stream.expected() + " fails its CRC32; nothing written");
    }
  }

  private void startFile(BinlogEvent fde) throws IOException {
    FormatDescriptionEvent format;
    try {
      format = FormatDescriptionEvent.parse(fde);
    } catch (ProtocolException e) {
      stream.fail();
      throw new ContinuityException(stream.expected(), "malformed FORMAT_DESCRIPTION for " + stream.file()
          + ": " + e.getMessage(), e);
    }
    if (format.isMariadb() != (flavor.gtidFlavor() == GtidFlavor.MARIADB)) {
      stream.fail();
      throw new StoreException("the primary is " + format.serverVersion() + " but the store in " + dir
          + " is configured for " + flavor.gtidFlavor() + "; nothing was written");
    }
    GtidSet before;
    if (open != null) {
      before = open.tracker.gtids().copy();
      closeOpenFile();
    } else {
      before = catalog.last().map(FileMetadata::gtidsAtEnd).orElseGet(flavor::emptyGtids);
    }
    String name = stream.file();
    BinlogFile file;
    try {
      file = BinlogFile.create(dir, name);
    } catch (IOException e) {
      throw fail(e);
    }
    FileStats stats = new FileStats(name, before);
    open = new OpenFile(file, flavor.newTracker(BinlogFileName.FIRST_EVENT_OFFSET, null, before), stats, -1,
        config.time().nanoseconds());
    catalog.add(stats.snapshot(flavor, false, BinlogFileName.FIRST_EVENT_OFFSET, before));
    syncer.submit(new CreateJob(name));
    pendingNextFile = null;
  }

  private Appended write(BinlogEvent event) throws IOException {
    OpenFile f = open;
    if (f == null) {
      throw new IllegalStateException("no open file for " + event + " at " + stream.expected());
    }
    long at = f.file.size();
    FileTracker.Completed done;
    try {
      done = f.tracker.accept(event, at);
    } catch (ProtocolException | IllegalArgumentException e) {
      stream.fail();
      throw new ContinuityException(new Position(f.name(), at), "malformed stream at " + new Position(f.name(), at)
          + ": " + e.getMessage() + "; nothing was written", e);
    }
    byte[] bytes = event.buffer();
    int offset = event.offset();
    boolean fde = event.type() == EventType.FORMAT_DESCRIPTION;
    if (fde) {
      bytes = event.toByteArray();
      offset = 0;
      bytes[EventHeader.FLAGS_OFFSET] |= EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
    }
    try {
      f.file.append(bytes, offset, event.length());
    } catch (IOException e) {
      throw fail(e);
    }
    GtidSet header = f.tracker.lastHeaderGtids();
    f.stats.event(event, f.tracker.format(), done, header);
    Position end = new Position(f.name(), f.file.size());
    if (f.tracker.atBoundary()) {
      f.stats.atBoundary();
      publish(f, end, done, header);
      if (fde) {
        listeners.fileCreated(f.name());
      }
      maybeCheckpoint(f, event, end.offset());
    }
    if (f.stats.ending() != FileMetadata.Ending.NONE) {
      closeOpenFile();
    }
    return new Appended(true, end, done != null, done == null ? null : done.text());
  }

  /** Everything up to {@code boundary} is complete transactions: tell the syncer and, maybe, readers. */
  private void publish(OpenFile f, Position boundary, FileTracker.Completed done, GtidSet header) {
    FileStats s = f.stats;
    readableState.record(boundary, done == null ? null : done.gtid(), header,
        new ReadableState.OpenFacts(f.name(), s.firstGtid(), s.lastGtid(), s.transactions(), s.lastEventTime()));
    if (header != null) {
      catalog.update(f.checkpoint(flavor)); // the file's own account of the GTIDs before it is now known
    }
    syncer.written(boundary, f.file, done != null);
    if (!config.readableWhenDurable()) {
      readableState.advanceTo(boundary);
      readable.advance(boundary);
    }
  }

  private void maybeCheckpoint(OpenFile f, BinlogEvent event, long boundary) {
    long now = config.time().nanoseconds();
    boolean first = f.checkpointOffset < 0 && event.type() != EventType.FORMAT_DESCRIPTION;
    boolean bytes = f.checkpointOffset >= 0 && boundary - f.checkpointOffset >= config.checkpointBytes();
    boolean time = boundary > f.checkpointOffset && now - f.checkpointNanos >= config.checkpointInterval().toNanos();
    if (first || bytes || time) {
      FileMetadata meta = f.checkpoint(flavor);
      f.checkpointOffset = boundary;
      f.checkpointNanos = now;
      catalog.update(meta);
      syncer.submit(new CheckpointJob(f.file, meta));
    }
  }

  /** Hands the open file to the syncer for its final force and closed metadata. */
  private void closeOpenFile() {
    OpenFile f = open;
    open = null;
    FileStats stats = f.stats;
    FileMetadata closed = stats.snapshot(flavor, true, f.file.size(), f.tracker.gtids());
    catalog.update(closed);
    syncer.submit(new CloseJob(f.file, closed, stats.ending() != FileMetadata.Ending.NONE));
  }

  /** The open file's name, if any. */
  Optional<String> currentFile() {
    OpenFile f = open;
    return f == null ? Optional.empty() : Optional.of(f.name());
  }

  /** Queues a checkpoint of the open file at its last boundary (on close of the store). */
  void checkpointOnClose() {
    lock.lock();
    try {
      if (open != null && failure == null && open.tracker.lastBoundary() > open.checkpointOffset) {
        syncer.submit(new CheckpointJob(open.file, open.checkpoint(flavor)));
      }
    } finally {
      lock.unlock();
    }
  }

  /** Closes the open file's channel (after the syncer stopped). */
  void closeFiles() throws IOException {
    lock.lock();
    try {
      if (open != null) {
        open.file.close();
      }
    } finally {
      lock.unlock();
    }
  }

  Throwable failure() {
    return failure;
  }

  /** Enters the failed state (first error wins). */
  IOException fail(IOException e) {
    markFailed(e);
    return e;
  }

  void markFailed(Throwable e) {
    if (failure == null) {
      failure = e;
      log.error("binlog store {} stops accepting writes after an I/O error; what is durable stays, reopen the"
          + " store to recover and resume", dir, e);
      listeners.failed(e); // readers keep serving up to the readable boundary, which stays where it is

    }
  }

  private void requireUsable() {
    Throwable f = failure;
    if (f != null) {
      throw new StoreFailedException("binlog store " + dir + " failed earlier (" + f + "); close and reopen it"
          + " to recover", f);
    }
  }

  /** Lists a new file in the index and forces the directory (its entry and the index's). */
  private final class CreateJob implements Syncer.Job {
    private final String name;

    CreateJob(String name) {
      this.name = name;
    }

    @Override
    public Position run() throws IOException {
      catalog.writeIndex();
      return null;
    }

    @Override
    public String toString() {
      return "create " + name;
    }
  }

  /** Forces the open file and records a checkpoint at a durable boundary. */
  private final class CheckpointJob implements Syncer.Job {
    private final BinlogFile file;
    private final FileMetadata meta;

    CheckpointJob(BinlogFile file, FileMetadata meta) {
      this.file = file;
      this.meta = meta;
    }

    @Override
    public Position run() throws IOException {
      file.force();
      MetadataFile.write(dir, meta, flavor);
      return new Position(meta.name(), meta.size());
    }
  }

  /** The final force of a file the primary moved on from, its in-use flag, and its closed metadata. */
  private final class CloseJob implements Syncer.Job {
    private final BinlogFile file;
    private final FileMetadata meta;
    private final boolean clearInUse;

    CloseJob(BinlogFile file, FileMetadata meta, boolean clearInUse) {
      this.file = file;
      this.meta = meta;
      this.clearInUse = clearInUse;
    }

    @Override
    public Position run() throws IOException {
      if (clearInUse) {
        file.setInUse(false);
      }
      file.force();
      MetadataFile.write(dir, meta, flavor);
      file.close();
      listeners.fileClosed(meta);
      return new Position(meta.name(), meta.size());
    }
  }
}
