package org.binlogrelay.storage;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.CorruptEventException;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writing half of {@link BinlogStore}: follows the dump stream ({@link DumpStream}), writes
 * events into the open file, tracks transactions ({@link FileTracker}), publishes each transaction
 * boundary (readable boundary, readable GTID set, syncer), rotates files, and hands checkpoints and
 * closes to the {@link Syncer} so that it never forces anything itself.
 *
 * <p>Disk errors: when writing an event or creating a file fails (ENOSPC, EIO), the writer cuts the
 * open file back to its last transaction boundary at once (a shrinking {@code ftruncate} needs no
 * space), so the files on disk stay exact prefixes of the primary's, reports the error to {@link
 * Availability}, and throws an {@link IOException} saying what failed, where, and what to do. While
 * the store does not accept writes (also after the syncer failed), {@link #append} and {@link
 * #startStream} throw {@link StoreUnavailableException}, after cutting an incomplete transaction
 * the same way. This writer is never used again after such a stop: {@link BinlogStore#tryResume()}
 * {@linkplain #retire retires} it and starts a new one from the recovered directory.
 *
 * <p>One writer thread; {@link #append} and {@link #startStream} are serialised by a lock anyway.
 */
final class StoreWriter {
  private static final Logger LOG = LoggerFactory.getLogger(StoreWriter.class);

  private final StoreConfig config;
  private final BinlogFlavor flavor;
  private final StoreDirectory dir;
  private final FileCatalog catalog;
  private final Syncer syncer;
  private final StoreWatch readable;
  private final ReadableState readableState;
  private final Listeners listeners;
  private final Availability availability;
  private final ReentrantLock lock = new ReentrantLock();
  private final List<String> abandonedCloses = new CopyOnWriteArrayList<>();
  private OpenFile open;
  private DumpStream stream;
  private String pendingNextFile;
  private State state = State.WRITING;

  /**
   * A writer's life. It only moves forward, through {@link #moveTo}:
   *
   * <pre>
   * WRITING --(a write or cut failed; or, at the next call, the store stopped)--> STOPPED
   * WRITING, STOPPED --(BinlogStore.tryResume() replaced it)--> RETIRED
   * </pre>
   *
   * Stopping or retiring again changes nothing (a resumption that failed after retiring the writer
   * retires it again on the next attempt).
   */
  enum State {
    /** Writes while the store accepts writes. */
    WRITING,
    /** Saw the store stop and cut its tail back to a transaction boundary; writes nothing more. */
    STOPPED,
    /** Replaced by a new writer; every call throws. */
    RETIRED;

    boolean canMoveTo(State next) {
      switch (this) {
        case WRITING:
        case STOPPED:
          return next != WRITING;
        default:
          return next == RETIRED;
      }
    }
  }

  StoreWriter(
      StoreConfig config,
      BinlogFlavor flavor,
      StoreDirectory dir,
      FileCatalog catalog,
      Syncer syncer,
      StoreWatch readable,
      ReadableState readableState,
      Listeners listeners,
      Availability availability,
      OpenFile tail,
      String pendingNextFile) {
    this.config = config;
    this.flavor = flavor;
    this.dir = dir;
    this.catalog = catalog;
    this.syncer = syncer;
    this.readable = readable;
    this.readableState = readableState;
    this.listeners = listeners;
    this.availability = availability;
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
      moveTo(State.STOPPED);
      throw new IOException(
          availability.fail(
              e,
              "cutting the incomplete transaction at the end of "
                  + open.name()
                  + " back to "
                  + boundary,
              null,
              0),
          e);
    }
    LOG.warn(
        "binlog store {}: cut {} bytes of {} from {}: a transaction the previous connection left"
            + " incomplete",
        dir,
        size - boundary,
        open.name(),
        boundary);
    open.tracker = flavor.newTracker(boundary, open.tracker.format(), open.tracker.gtids());
  }

  /** See {@link BinlogStore#append}. */
  Appended append(BinlogEvent event) throws IOException {
    lock.lock();
    try {
      requireUsable();
      if (stream == null) {
        throw new IllegalStateException(
            "call startStream() before appending, and ask the primary for the"
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
      throw new ContinuityException(
          stream.expected(),
          event.header().typeName()
              + " event "
              + (event.hasChecksum() ? "has" : "lacks")
              + " a checksum but "
              + open.name()
              + " is "
              + format.checksumAlgorithm()
              + "; decode the stream with the file's FORMAT_DESCRIPTION");
    }
    if (event.hasChecksum() && !event.checksumMatches()) {
      stream.fail();
      throw new CorruptEventException(
          CorruptEventException.Reason.CHECKSUM_MISMATCH,
          event.offset(),
          event.header().typeName()
              + " event for "
              + stream.expected()
              + " fails its CRC32; nothing written");
    }
  }

  private void startFile(BinlogEvent fde) throws IOException {
    FormatDescriptionEvent format;
    try {
      format = FormatDescriptionEvent.parse(fde);
    } catch (ProtocolException e) {
      stream.fail();
      throw new ContinuityException(
          stream.expected(),
          "malformed FORMAT_DESCRIPTION for " + stream.file() + ": " + e.getMessage(),
          e);
    }
    if (!flavor.wrote(format)) {
      stream.fail();
      throw new StoreException(
          "the primary is "
              + format.serverVersion()
              + " but the store in "
              + dir
              + " is configured for "
              + flavor.gtidFlavor()
              + "; nothing was written");
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
      moveTo(State.STOPPED);
      stream.fail();
      String kept =
          catalog.last().map(l -> "; the store ends with " + l.name() + ", closed").orElse("");
      throw new IOException(
          availability.fail(
              e,
              "creating " + name + ", the next binlog file,",
              "Nothing of " + name + " was kept" + kept,
              BinlogFileParser.MAGIC.length),
          e);
    }
    FileStats stats = new FileStats(name, before);
    open =
        new OpenFile(
            file,
            flavor.newTracker(BinlogFileName.FIRST_EVENT_OFFSET, null, before),
            stats,
            -1,
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
    long boundaryBefore = f.tracker.lastBoundary();
    FileTracker.Completed done;
    try {
      done = f.tracker.accept(event, at);
    } catch (ProtocolException | IllegalArgumentException e) {
      stream.fail();
      throw new ContinuityException(
          new Position(f.name(), at),
          "malformed stream at "
              + new Position(f.name(), at)
              + ": "
              + e.getMessage()
              + "; nothing was written",
          e);
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
      if (f.tracker.atBoundary()) {
        f.file.flush(); // one write for the whole transaction (or header event)
      }
    } catch (IOException e) {
      moveTo(State.STOPPED);
      stream.fail();
      throw new IOException(
          availability.fail(
              e, failedWrite(f, event, at), cutTo(f, boundaryBefore), f.file.lastWriteLength()),
          e);
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

  /**
   * What the write that failed held, for the error message: "writing N bytes (what) at
   * file:offset".
   */
  private static String failedWrite(OpenFile f, BinlogEvent event, long eventAt) {
    long from = f.file.lastWriteAt();
    int length = f.file.lastWriteLength();
    String what;
    if (from == eventAt && length == event.length()) {
      what = event.header().typeName() + " event";
    } else if (from + length <= eventAt) {
      what = "the transaction's events before a " + event.header().typeName() + " event";
    } else {
      what = "the transaction's events up to its " + event.header().typeName() + " event";
    }
    return "writing " + length + " bytes (" + what + ") at " + new Position(f.name(), from);
  }

  /**
   * Everything up to {@code boundary} is complete transactions: tell the syncer and, maybe,
   * readers.
   */
  private void publish(OpenFile f, Position boundary, FileTracker.Completed done, GtidSet header) {
    FileStats s = f.stats;
    readableState.record(
        boundary,
        done == null ? null : done.gtid(),
        header,
        new ReadableState.OpenFacts(
            f.name(), s.firstGtid(), s.lastGtid(), s.transactions(), s.lastEventTime()));
    if (header != null) {
      catalog.update(
          f.checkpoint(flavor)); // the file's own account of the GTIDs before it is now known
    }
    syncer.written(boundary, f.file, done != null);
    if (done != null) {
      listeners.transactionWritten(boundary, s.lastEventTime());
    }
    if (!config.readableWhenDurable()) {
      readable.advance(boundary, readableState::advanceTo);
    }
  }

  private void maybeCheckpoint(OpenFile f, BinlogEvent event, long boundary) {
    long now = config.time().nanoseconds();
    boolean first = f.checkpointOffset < 0 && event.type() != EventType.FORMAT_DESCRIPTION;
    boolean bytes =
        f.checkpointOffset >= 0 && boundary - f.checkpointOffset >= config.checkpointBytes();
    boolean time =
        boundary > f.checkpointOffset
            && now - f.checkpointNanos >= config.checkpointInterval().toNanos();
    if (first || bytes || time) {
      FileMetadata meta = f.checkpoint(flavor);
      f.checkpointOffset = boundary;
      f.checkpointNanos = now;
      catalog.update(meta);
      syncer.submit(new CheckpointJob(f.file, meta));
    }
  }

  /**
   * Hands the open file to the syncer for its final force and closed metadata, and its in-use flag:
   * cleared when the primary closed the file (ROTATE, STOP), and, for a flavour whose server does
   * so in its crash recovery, when the primary abandoned it (its next file starts without either).
   * The catalog has the file's final account at once, so {@link BinlogStore#files()} never shows it
   * stale while the syncer is busy.
   */
  private void closeOpenFile() {
    OpenFile f = open;
    open = null;
    FileStats stats = f.stats;
    FileMetadata closed = stats.snapshot(flavor, true, f.file.size(), f.tracker.gtids());
    catalog.update(closed);
    boolean clearInUse =
        stats.ending() != FileMetadata.Ending.NONE || flavor.clearsInUseAfterCrash();
    syncer.submit(new CloseJob(f.file, closed, clearInUse));
  }

  /** The open file's name, if any. */
  Optional<String> currentFile() {
    OpenFile f = open;
    return f == null ? Optional.empty() : Optional.of(f.name());
  }

  /**
   * After a failed write: cuts {@code f} back to {@code boundary} (the end of its last complete
   * transaction) and says what was done, for the error message. If cutting fails too, says so:
   * recovery cuts the tail when the store resumes or is opened again.
   */
  private String cutTo(OpenFile f, long boundary) {
    try {
      f.file.truncate(boundary);
      return "Cut "
          + f.name()
          + " back to "
          + boundary
          + ", the end of its last complete transaction";
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "binlog store {}: could not cut {} back to {} after a failed write ({}); the incomplete tail is cut"
              + " when the store resumes or is opened again",
          dir,
          f.name(),
          boundary,
          e.toString());
      return "Cutting "
          + f.name()
          + " back to "
          + boundary
          + " failed too ("
          + e.getMessage()
          + "); the"
          + " incomplete tail is cut when the store resumes";
    }
  }

  /**
   * The store stopped (the syncer failed) while this writer was idle: cut an incomplete transaction
   * at the end of the open file, so the files on disk end at a transaction boundary.
   */
  private void cutOnStop() {
    OpenFile f = open;
    if (f == null || f.tracker.atBoundary()) {
      return;
    }
    long boundary = f.tracker.lastBoundary();
    long size = f.file.size();
    String done = cutTo(f, boundary);
    LOG.warn(
        "binlog store {} stopped with a transaction incomplete. {} ({} bytes cut)",
        dir,
        done,
        size - boundary);
  }

  /** Queues a checkpoint of the open file at its last boundary (on close of the store). */
  void checkpointOnClose() {
    lock.lock();
    try {
      if (open != null
          && state == State.WRITING
          && availability.accepting()
          && open.tracker.lastBoundary() > open.checkpointOffset) {
        syncer.submit(new CheckpointJob(open.file, open.checkpoint(flavor)));
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Forces the open file on its own channel, then closes the channel (after the syncer stopped).
   * The force reports a writeback the kernel failed since this channel's last force, which a force
   * through a new channel would not; if it fails, {@link #forceFailed()} says so and the channel is
   * closed all the same.
   */
  void closeFiles() throws IOException {
    lock.lock();
    try {
      if (open != null) {
        try {
          open.file.force();
        } catch (IOException e) {
          LOG.warn(
              "binlog store {}: forcing {} before resuming failed: {}",
              dir,
              open.file.name(),
              e.toString());
        } finally {
          open.file.close();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** True if a force of the open file failed, by the syncer or by {@link #closeFiles()}. */
  boolean forceFailed() {
    lock.lock();
    try {
      return open != null && open.file.forceFailed();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops this writer for good ({@link BinlogStore#tryResume()} replaces it): every later call
   * throws. Its channels stay open until {@link #closeFiles()}, so the syncer can finish with them
   * first.
   */
  void retire() {
    lock.lock();
    try {
      moveTo(State.RETIRED);
    } finally {
      lock.unlock();
    }
  }

  /** Files whose close job never ran (the syncer failed first): recovery closes them. */
  List<String> abandonedCloses() {
    return List.copyOf(abandonedCloses);
  }

  private void requireUsable() {
    if (state == State.RETIRED) {
      if (!availability.accepting()) {
        listeners.appendRefused(availability.health().condition());
        throw availability.unavailable();
      }
      throw new IllegalStateException(
          "binlog store "
              + dir
              + " resumed writing after an I/O error; call"
              + " startStream() and ask the primary for the position it returns");
    }
    if (!availability.accepting()) {
      if (state == State.WRITING) {
        moveTo(State.STOPPED);
        if (stream != null) {
          stream.fail();
        }
        cutOnStop();
      }
      listeners.appendRefused(availability.health().condition());
      throw availability.unavailable();
    }
  }

  /** The one place the state changes; an impossible move is a bug in this class. Under the lock. */
  private void moveTo(State next) {
    if (!state.canMoveTo(next)) {
      throw new IllegalStateException(
          "binlog store " + dir + ": the writer cannot go from " + state + " to " + next);
    }
    state = next;
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
      return "rewriting the index to list "
          + name
          + " (temporary file, force, rename, directory force)";
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

    @Override
    public boolean forceFailed() {
      return file.forceFailed();
    }

    @Override
    public String toString() {
      return "checkpointing "
          + meta.name()
          + " at "
          + meta.size()
          + " (force, then "
          + MetadataFile.nameFor(meta.name())
          + ")";
    }
  }

  /**
   * The final force of a file the primary moved on from, its in-use flag, and its closed metadata.
   */
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

    @Override
    public void abandon() {
      abandonedCloses.add(meta.name());
      try {
        file.close();
      } catch (IOException e) {
        LOG.warn(
            "binlog store {}: closing {} after the syncer failed: {}",
            dir,
            meta.name(),
            e.toString());
      }
    }

    @Override
    public boolean forceFailed() {
      return file.forceFailed();
    }

    @Override
    public String toString() {
      return "closing "
          + meta.name()
          + " at "
          + meta.size()
          + " ("
          + (clearInUse ? "in-use flag, " : "")
          + "force, then "
          + MetadataFile.nameFor(meta.name())
          + ")";
    }
  }
}
