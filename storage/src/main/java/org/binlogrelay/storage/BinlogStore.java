package org.binlogrelay.storage;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary's binlog files, stored byte for byte, durable per a {@link SyncPolicy}, served to
 * many readers.
 *
 * <h2>On disk</h2>
 *
 * One directory holds:
 *
 * <pre>
 *   binlog.000001 ...        the primary's files, same names, same bytes, same offsets
 *   binlog.index             the files in serving order, one "./name" per line, like the server's index
 *   binlog.000001.meta ...   per-file metadata (GTID sets, times, size, closed flag, checkpoint), see
 *                            {@link MetadataFile}
 * </pre>
 *
 * Index and metadata are replaced atomically (temporary file, force, rename, force of the
 * directory).
 *
 * <h2>Writing</h2>
 *
 * One writer thread calls {@link #startStream()} at every (re)connection to the primary, asks the
 * primary for the position it returns, then passes every event of the dump stream to {@link
 * #append}. The store checks that each event continues the stored binlog exactly (its log_pos is
 * where it ends), writes it, and drops the events the primary makes up for the dump (see {@link
 * DumpStream}). A gap, an overlap or an unexpected file is a {@link ContinuityException} and
 * nothing is written.
 *
 * <h2>Boundaries</h2>
 *
 * <ul>
 *   <li>{@link #readable()}: readers never read past it. It only moves to transaction boundaries,
 *       so a reader never sees half a transaction; with {@link StoreConfig#readableWhenDurable()}
 *       it also never passes {@link #durable()}.
 *   <li>{@link #durable()}: everything before it is forced to disk (data, the file's directory
 *       entry and the index). A background syncer advances it per the {@link SyncPolicy}; the
 *       writer never waits.
 * </ul>
 *
 * A file before the readable boundary's file is complete: readers read it to its end.
 *
 * <h2>Recovery</h2>
 *
 * {@link #open} recovers the directory first ({@link StoreRecovery}): it checks the tail file from
 * its last checkpoint, cuts an incomplete transaction or a corrupt tail, repairs the index and
 * metadata, and reports it all in {@link #recoveryReport()}. Opening time depends on the tail since
 * its checkpoint, not on the size of the store. On a directory that does not take writes (a full
 * disk), recovery computes the same state from reads alone and the store opens not accepting
 * writes: readers are served what is complete, and {@link #tryResume()} makes the deferred repairs
 * once writes work (docs/storage.md, section 7).
 *
 * <h2>Thread-safety</h2>
 *
 * {@link #startStream()} and {@link #append} belong to one writer thread (they are serialised by a
 * lock, but the stream only makes sense from one thread). Everything else is thread-safe and never
 * blocks on the writer or on a disk force, except {@link #removeFilesBefore}, {@link #verify},
 * {@link #tryResume} and {@link #close}, which do I/O on the caller's thread.
 *
 * <h2>Disk errors</h2>
 *
 * ENOSPC or any other I/O error while writing, forcing, creating a file or replacing the index or a
 * metadata file stops the store ({@link #health()}: {@link StoreCondition#DISK_FULL} or {@link
 * StoreCondition#IO_ERROR}). The failing {@link #append} throws an {@link IOException} saying what
 * failed, where, and what to do; later appends throw {@link StoreUnavailableException}. The files
 * on disk stay exact prefixes of the primary's, ending at a transaction boundary, and readers keep
 * serving what is readable. {@link #tryResume()} returns the store to accepting once the condition
 * has cleared (docs/storage.md, section 7).
 */
public final class BinlogStore implements BinlogSource, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(BinlogStore.class);

  private final StoreConfig config;
  private final StoreDirectory dir;
  private final BinlogFlavor flavor;
  private final RecoveryReport report;
  private final FileCatalog catalog;
  private final StoreWatch readable;
  private final StoreWatch durable;
  private final ReadableState readableState;
  private final ReadableFiles views;
  private final FileRemoval removal;
  private final Listeners listeners = new Listeners();
  private final Availability availability;
  private final EventBoundaries boundaries = new EventBoundaries();

  /** Serialises {@link #tryResume()} and {@link #close()}. */
  private final Object resumeLock = new Object();

  private final Object retentionLock = new Object();
  private volatile Syncer syncer;
  private volatile StoreWriter writer;
  private boolean closed;

  /**
   * @param refused the write error at open, if {@code r} was found without writing: the store then
   *     starts not accepting writes; {@code null} otherwise
   * @param step what failed with {@code refused}
   */
  private BinlogStore(
      StoreConfig config,
      StoreDirectory dir,
      BinlogFlavor flavor,
      StoreRecovery.Recovered r,
      IOException refused,
      String step) {
    this.config = config;
    this.dir = dir;
    this.flavor = flavor;
    this.report = r.report();
    this.catalog = new FileCatalog(dir, r.indexName(), r.files());
    this.readable = new StoreWatch("readable", r.end());
    this.durable = new StoreWatch("durable", r.end());
    this.readableState = new ReadableState(flavor, r.end(), r.executed(), openFacts(r));
    this.views =
        new ReadableFiles(dir, flavor, config.maxEventSize(), catalog, readable, readableState);
    this.availability = new Availability(dir, config.time(), listeners, durable);
    this.removal = new FileRemoval(dir, catalog, durable, listeners, retentionLock);
    if (refused != null) {
      availability.fail(refused, step, deferredRepairs(r), 0);
    }
    start(r);
  }

  private static String deferredRepairs(StoreRecovery.Recovered r) {
    List<Truncation> cuts = r.report().truncations();
    return "Recovery found the store's state by reading alone (it ends at "
        + r.end()
        + ", next upstream position "
        + r.report().nextUpstreamPosition()
        + (cuts.isEmpty()
            ? ""
            : "; " + cuts.size() + " cut(s) to make, readers" + " are served nothing past them")
        + ") and leaves its repairs on disk (cuts, metadata, index) until the"
        + " store accepts writes";
  }

  /** Starts a syncer and a writer on the recovered state {@code r}. */
  private void start(StoreRecovery.Recovered r) {
    Syncer s =
        new Syncer(
            "binlog-syncer " + dir.path().getFileName(),
            config.syncPolicy(),
            config.time(),
            durable,
            r.end(),
            this::durableAdvanced,
            (what, e) -> availability.fail(e, what, null, 0),
            listeners::forced);
    this.writer =
        new StoreWriter(
            config,
            flavor,
            dir,
            catalog,
            s,
            readable,
            readableState,
            listeners,
            availability,
            r.tail(),
            r.pendingNextFile());
    this.syncer = s;
    s.start();
  }

  private static ReadableState.OpenFacts openFacts(StoreRecovery.Recovered r) {
    if (r.tail() == null) {
      return null;
    }
    FileStats s = r.tail().stats;
    return new ReadableState.OpenFacts(
        r.tail().name(), s.firstGtid(), s.lastGtid(), s.transactions(), s.lastEventTime());
  }

  /** Opens (creating if needed) and recovers the store in {@link StoreConfig#directory()}. */
  public static BinlogStore open(StoreConfig config) throws IOException {
    return open(config, ChannelOpener.FILES);
  }

  /**
   * {@link #open(StoreConfig)} writing through channels from {@code opener} (tests inject I/O
   * errors).
   *
   * <p>First a probe, as {@link #tryResume()} makes: writing, forcing and deleting 16 KiB. If it
   * fails (a full disk, EIO, a read-only remount; not a permission refused, which is a setup error
   * reported at once), or if recovery's own writes fail later, recovery runs without writing
   * ({@link StoreRecovery#withoutWriting}) and the store opens not accepting writes, in the
   * condition the error says, as if that write had failed while running: readers are served the
   * complete transactions (never past a torn tail, which is cut only in the state), and {@link
   * #tryResume()} recovers again, with writes, once the directory takes them. What a writing
   * recovery had done before its write failed is what a crash during recovery leaves, which
   * recovery handles.
   */
  static BinlogStore open(StoreConfig config, ChannelOpener opener) throws IOException {
    StoreDirectory dir = new StoreDirectory(config.directory(), opener);
    BinlogFlavor flavor = BinlogFlavor.of(config.flavor());
    String step =
        "writing and forcing "
            + Resumption.MIN_PROBE_BYTES
            + " bytes to "
            + dir.resolve(Resumption.PROBE + StoreDirectory.TEMP_SUFFIX)
            + " (a probe) on opening the store";
    IOException refused;
    try {
      dir.probe(Resumption.PROBE, Resumption.MIN_PROBE_BYTES);
      step = "recovering the store on opening it";
      return new BinlogStore(
          config, dir, flavor, new StoreRecovery(dir, flavor, config).recover(), null, null);
    } catch (IOException e) {
      if (refusedAccess(e)) {
        throw e;
      }
      refused = e;
    }
    LOG.warn(
        "binlog store {}: {} failed ({}); recovering it without writing, to serve what it holds until it"
            + " accepts writes",
        dir,
        step,
        refused.toString());
    StoreRecovery.Recovered recovered;
    try {
      recovered = StoreRecovery.withoutWriting(dir, flavor, config).recover();
    } catch (IOException | RuntimeException readFailed) {
      refused.addSuppressed(readFailed);
      throw refused;
    }
    return new BinlogStore(config, dir, flavor, recovered, refused, step);
  }

  private static boolean refusedAccess(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof AccessDeniedException) {
        return true;
      }
    }
    return false;
  }

  private void durableAdvanced(Position p) {
    if (config.readableWhenDurable()) {
      readable.advance(p, readableState::advanceTo);
    }
  }

  /** What recovery found and did when the store was opened. */
  public RecoveryReport recoveryReport() {
    return report;
  }

  /**
   * Starts (or restarts) the upstream stream: cuts the bytes of a transaction left incomplete by
   * the previous connection, and returns where the primary must continue (the file and offset for
   * COM_BINLOG_DUMP), or empty for an empty store, where any file may start at offset 4. The next
   * event {@link #append}ed must be the primary's artificial ROTATE naming that position. Writer
   * thread only.
   */
  public Optional<Position> startStream() throws IOException {
    return writer.startStream();
  }

  /**
   * Takes the next event of the primary's dump stream (already decoded, e.g. by {@code
   * BinlogEventDecoder}; its CRC32 is checked again here). Writer thread only.
   *
   * @throws ContinuityException if the event does not continue the stored binlog; nothing was
   *     written
   * @throws org.binlogrelay.protocol.event.CorruptEventException if its CRC32 does not match;
   *     nothing written
   * @throws StoreUnavailableException if the store is {@link StoreCondition#DISK_FULL} or {@link
   *     StoreCondition#IO_ERROR} (see {@link #tryResume()}); nothing was written
   * @throws IOException if writing failed (the disk is full, EIO, ...): the store then stops
   *     accepting writes, with the open file cut back to its last transaction boundary; the message
   *     says what to do
   */
  public Appended append(BinlogEvent event) throws IOException {
    return writer.append(event);
  }

  /** The readable boundary: readers never read past it (see the class comment). */
  @Override
  public StoreWatch readable() {
    return readable;
  }

  /** The durable boundary: everything before it is on disk. */
  public StoreWatch durable() {
    return durable;
  }

  /** Shorthand for {@code readable().position()}; {@code null} for an empty store. */
  @Override
  public Position readableEnd() {
    return readable.position();
  }

  /** Shorthand for {@code durable().position()}; {@code null} for an empty store. */
  public Position durableEnd() {
    return durable.position();
  }

  /**
   * Completes once {@code position} is durable. Does not itself cause a force (with {@link
   * SyncPolicy#off()} it may wait for the next checkpoint or rotation); use {@link #sync()} for
   * that.
   */
  public CompletableFuture<Position> whenDurable(Position position) {
    return durable.whenReached(position);
  }

  /**
   * Asks the syncer to force everything written so far now; completes with the new durable
   * position.
   */
  public CompletableFuture<Position> sync() {
    return syncer.requestSync();
  }

  /**
   * The GTID set of the transactions before the readable boundary (a copy): {@code @@gtid_executed}
   * (MySQL) or {@code @@gtid_binlog_state} (MariaDB) of a server whose binlog ended there. It is
   * never ahead of the readable boundary: every transaction in it is readable at the moment it is
   * returned, so a set read before {@link #readableEnd()} holds nothing past the position read
   * after it. Read in the other order, the boundary may have moved on in between; for the pair at
   * one instant use {@link #readableSnapshot()}.
   */
  @Override
  public GtidSet executedGtids() {
    return views.executedGtids();
  }

  /**
   * The readable boundary and the GTID set exactly there, taken together (see {@link
   * ReadableSnapshot}).
   */
  public ReadableSnapshot readableSnapshot() {
    return views.snapshot();
  }

  /**
   * The GTID set before the oldest stored file (a copy): what a replica can no longer get from this
   * store, the equivalent of {@code @@gtid_purged}. Empty for an empty store.
   */
  @Override
  public GtidSet purgedGtids() {
    return views.purgedGtids();
  }

  /**
   * The stored files, oldest first, as of the readable boundary (one consistent picture per call),
   * so that a lookup never sees a transaction readers cannot read:
   *
   * <ul>
   *   <li>files before the readable boundary's file are complete, and every field is exact (final)
   *       as soon as the writer reached the file's end (a ROTATE, a STOP, or the primary starting
   *       its next file after a crash), even before the syncer forced it and wrote its {@code
   *       .meta}; {@link FileMetadata#closed()} here means complete, the {@linkplain #durable()
   *       durable boundary} says what is on disk;
   *   <li>the file holding the readable boundary (normally the open, last file): {@link
   *       FileMetadata#size()} is the readable length, and {@link FileMetadata#transactions()},
   *       {@link FileMetadata#gtidsAtEnd()}, {@link FileMetadata#firstGtid()}, {@link
   *       FileMetadata#lastGtid()} and {@link FileMetadata#lastEventTime()} are exact at the
   *       boundary (from the writer's record of it, not from a checkpoint: the first GTID is there
   *       as soon as the first transaction is readable); {@link FileMetadata#gtidsAtStart()} and
   *       {@link FileMetadata#firstEventTime()} come from its header events. It shows {@code
   *       closed} and its ending only once the boundary is at its end;
   *   <li>a file after it (only with {@link StoreConfig#readableWhenDurable()} while forces lag, or
   *       for an instant as a new file starts) has nothing readable yet: size 4, no transactions.
   * </ul>
   *
   * Only the {@code .meta} files on disk are as of the last checkpoint (they are what recovery
   * starts from).
   */
  @Override
  public List<FileMetadata> files() {
    return views.list();
  }

  /**
   * The metadata of {@code name} (see {@link #files()}), or empty if the store does not hold it.
   */
  @Override
  public Optional<FileMetadata> file(String name) {
    return views.get(name);
  }

  /**
   * The file after {@code name} in serving order, if there is one yet.
   *
   * @throws java.util.NoSuchElementException if the store does not hold {@code name}
   */
  @Override
  public Optional<String> nextFile(String name) {
    return catalog.next(name);
  }

  /**
   * How many bytes of {@code name} readers may read: the whole file if the readable boundary is in
   * a later file, the boundary's offset if it is in this one, 0 if the boundary has not reached the
   * file yet.
   *
   * @throws java.util.NoSuchElementException if the store does not hold the file (not yet, or
   *     removed)
   */
  @Override
  public long readableLength(String name) {
    return views.readableLength(name);
  }

  /**
   * The file being written to, empty before the first file or between a ROTATE and the next file.
   */
  public Optional<String> currentFile() {
    return writer.currentFile();
  }

  /**
   * Event boundaries found in stored files by earlier position checks (hints for the next ones).
   */
  @Override
  public EventBoundaries boundaries() {
    return boundaries;
  }

  /** The store's directory. */
  public Path directory() {
    return dir.path();
  }

  @Override
  public GtidFlavor flavor() {
    return config.flavor();
  }

  public StoreConfig config() {
    return config;
  }

  @Override
  public int maxEventSize() {
    return config.maxEventSize();
  }

  @Override
  public Time time() {
    return config.time();
  }

  /**
   * {@link #openFile} with the file's identity, to tell a file recreated under the same name from
   * the one opened.
   *
   * @throws java.nio.file.NoSuchFileException if the file is not (or no longer) stored
   */
  @Override
  public OpenedFile open(String name) throws IOException {
    return OpenedFile.local(name, openFile(name), dir.path().resolve(name));
  }

  /**
   * Opens {@code name} for reading: a read-only channel the caller owns and closes, independent of
   * the writer. It stays readable after the file is removed by retention (POSIX semantics). Read
   * only up to {@link #readableLength}.
   *
   * @throws java.nio.file.NoSuchFileException if the file is not (or no longer) stored
   */
  public FileChannel openFile(String name) throws IOException {
    return views.open(name);
  }

  /**
   * Reads {@code name} back and checks every event (sizes, CRC32, log_pos continuity,
   * transactions). For the open file only the readable part is checked. Runs on the caller's
   * thread; reads the whole file.
   */
  public FileVerification verify(String name) throws IOException {
    return views.verify(name);
  }

  /**
   * Removes every file before {@code firstKept} (oldest first): rewrites the index without them,
   * forces the directory, then deletes the files and their metadata. Readers that have a file open
   * keep reading it.
   *
   * @return the names removed, oldest first
   * @throws IllegalArgumentException if {@code firstKept} is not stored
   * @throws IllegalStateException if a file to remove is not closed and durable yet
   */
  public List<String> removeFilesBefore(String firstKept) throws IOException {
    return removal.removeBefore(firstKept);
  }

  public void addListener(StoreListener listener) {
    listeners.add(listener);
  }

  public void removeListener(StoreListener listener) {
    listeners.remove(listener);
  }

  /**
   * The I/O error that stopped the store, while it does not accept writes (empty after {@link
   * #tryResume()}).
   */
  @Override
  public Optional<Throwable> failure() {
    return Optional.ofNullable(availability.cause());
  }

  /**
   * Whether the store accepts writes, since when, the last error, and counters (disk-full and I/O
   * error events, resumes) to export as metrics. Thread-safe, cheap.
   */
  public StoreHealth health() {
    return availability.health();
  }

  /**
   * Returns a store that stopped on a disk error ({@link StoreCondition#DISK_FULL}, {@link
   * StoreCondition#IO_ERROR}) to accepting writes, if the condition has cleared. The caller retries
   * with its own clock and backoff (e.g. every few seconds, and after retention freed space);
   * nothing here sleeps.
   *
   * <p>An attempt first writes, forces and deletes a probe file: 16 KiB, or the write that failed
   * if it was bigger (up to 1 MiB), so that a store that ran out of space resumes only once that
   * write fits. Then it stops the syncer (its last round forces what it can), closes the writer's
   * files, and, if a force had failed, cuts the store back to the durable boundary (after a failed
   * {@code fsync} nothing after it is known to be on disk, whatever the page cache shows; the
   * primary sends it again); then recovers the directory in place exactly as {@link #open} does
   * (cuts an incomplete tail, closes files whose close did not finish, lists a file the index
   * missed, writes a fresh checkpoint). If that works, a new syncer and writer take over and the
   * store accepts writes again: the writer calls {@link #startStream()} and asks the primary for
   * the position it returns, so no event is lost or written twice. Readers are not disturbed: the
   * readable boundary only moves forward, and the bytes before it do not change (but for a cut back
   * to the durable boundary after a failed force: those bytes are gone until the primary sends the
   * same ones again).
   *
   * <p>If an attempt fails, the store stays stopped, the error is logged at WARN and recorded in
   * {@link #health()} ({@link StoreHealth#lastError()}, {@link StoreHealth#failedResumes()}), and
   * what the attempt did on disk is safe to repeat. Thread-safe; runs on the caller's thread and
   * does I/O.
   *
   * @return true if the store accepts writes now (also if it never stopped), false if the condition
   *     persists
   * @throws IllegalStateException if the store is closed
   * @throws StoreCorruptException if recovery finds the directory damaged in a way it does not
   *     repair
   */
  public boolean tryResume() {
    synchronized (resumeLock) {
      if (closed) {
        throw new IllegalStateException("binlog store " + dir + " is closed");
      }
      if (availability.accepting()) {
        return true;
      }
      synchronized (retentionLock) {
        Resumption.Result r =
            new Resumption(dir, flavor, config, catalog, durable, availability)
                .attempt(writer, syncer);
        if (r == null) {
          return false;
        }
        adopt(r.recovered(), r.abandonedCloses());
        return true;
      }
    }
  }

  /**
   * Takes over the state recovery found, with a new syncer and writer, and accepts writes again.
   */
  private void adopt(StoreRecovery.Recovered r, List<String> abandonedCloses) {
    Position readableBefore = readable.position();
    Position end = r.end();
    catalog.replaceAll(r.indexName(), r.files());
    ReadableState.OpenFacts facts = openFacts(r);
    durable.revive();
    if (end != null) {
      durable.advance(end); // recovery forced everything up to end
    }
    if (end != null && (readableBefore == null || end.isAfter(readableBefore))) {
      readable.advance(end, p -> readableState.resumeAt(end, r.executed(), facts, readableBefore));
    } else {
      readableState.resumeAt(end, r.executed(), facts, readableBefore);
    }
    if (end != null && readableBefore != null && end.isBefore(readableBefore)) {
      LOG.warn(
          "binlog store {}: readers had read up to {} but the disk kept only up to {}; the primary sends the"
              + " same bytes again from there",
          dir,
          readableBefore,
          end);
    }
    start(r);
    StoreHealth was = availability.health();
    availability.resumed();
    LOG.info(
        "binlog store {} accepts writes again after {} since {}: ends at {}, next upstream position {}, {}"
            + " truncations",
        dir,
        was.condition(),
        was.since(),
        end,
        r.report().nextUpstreamPosition(),
        r.report().truncations().size());
    for (String name : abandonedCloses) {
      catalog.get(name).filter(FileMetadata::closed).ifPresent(listeners::fileClosed);
    }
  }

  /**
   * Forces everything written, writes the open file's checkpoint, stops the syncer and closes the
   * files. Pending waits on the boundaries complete if reached, else fail. Idempotent.
   */
  @Override
  public void close() throws IOException {
    synchronized (resumeLock) {
      if (closed) {
        return;
      }
      closed = true;
      StoreWriter w = writer;
      Syncer s = syncer;
      w.checkpointOnClose();
      try {
        s.stop();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while closing binlog store " + dir);
      } finally {
        w.closeFiles();
        IllegalStateException closedError =
            new IllegalStateException("binlog store " + dir + " is closed");
        readable.fail(closedError);
        durable.fail(closedError);
      }
      Throwable f = s.failure();
      if (f != null) {
        throw new IOException(
            "binlog store "
                + dir
                + " could not force its last writes ("
                + f.getMessage()
                + "); opening it again recovers what is complete",
            f);
      }
    }
  }

  @Override
  public String toString() {
    return "BinlogStore(" + dir + ", " + readable + ", " + durable + ")";
  }
}
