package org.binlogrelay.archive.upload;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.stream.Collectors;
import org.binlogrelay.archive.ArchivedFileRecord;
import org.binlogrelay.archive.codec.ChunkCodec;
import org.binlogrelay.archive.codec.KeyRing;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.ObjectStoreException;
import org.binlogrelay.archive.upload.KeyValueText.DamagedException;
import org.binlogrelay.archive.upload.UploadState.Phase;
import org.binlogrelay.archive.upload.UploadStep.StepHook;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreListener;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.tier.ArchiveGate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Archives every closed binlog file of a store, once each, oldest first, on one background thread
 * ({@value #THREAD_NAME}): ingest and serving never wait for it. The store's {@link
 * StoreListener#fileClosed} only wakes the thread; the queue is not kept in memory but read from
 * the store each time (its closed files without a VERIFIED {@link UploadState}), so a backlog of
 * any length costs no memory and survives restarts. Each file goes through {@link FileUpload}
 * (which reconciles with the object store first, so a restart resumes instead of re-uploading), and
 * the uploader never passes a file that is not VERIFIED: the archive stays contiguous.
 *
 * <p>Failures: kinds that may pass by themselves ({@link FailureKind#retryable()}) are retried
 * after waits from 1 s doubling to 60 s, with jitter, forever; the others are retried every {@link
 * UploadConfig#slowRetry()} and reported as {@link UploadStatus.State#FAILING}. A CONFLICT (the
 * archive holds other bytes under a file's name) stops archiving: {@link #status()} says why and
 * what to do. {@link #counters()} and {@link #status()} are for the server's metrics and admin API;
 * {@link #gate()} tells retention which files are archived; {@link UploadListener}s hear of each.
 *
 * <p>A closed file is taken once its final state is on disk: the store calls {@code fileClosed}
 * after its in-use flag, force and metadata, or the durable boundary is in a later file. Files
 * already closed when {@link #start()} runs count as settled, so start the uploader after {@code
 * BinlogStore.open} and before the store is written to (as the relay does).
 *
 * <p>With {@link UploadConfig#uploadDelay()}, a file's upload starts that long after its last event
 * (the second of two relays sharing a prefix then usually finds the first one's upload and sends
 * nothing).
 *
 * <p>With {@link #deferWhileCatchingUp} and {@link UploadConfig#deferral()}, uploads wait while the
 * relay catches up its primary ({@link CatchUpDeferral}: state {@link UploadStatus.State#DEFERRED},
 * checked before each file and between parts), so that the archive does not slow a catch-up.
 *
 * <p>State files live in {@code <data-dir>/archive/uploads/} ({@link #stateDirectory}); those of
 * files the store no longer holds are deleted. With an encoding, data objects are staged in {@code
 * <data-dir>/archive/staging/} until VERIFIED ({@link #stagedBytes}). Thread-safe: {@link #start},
 * {@link #stop}, {@link #wake}, {@link #status}, {@link #counters} and {@link #gate} may be called
 * from any thread.
 */
public final class Uploader implements AutoCloseable {
  /** The uploader thread's name. */
  public static final String THREAD_NAME = "archive-uploader";

  private static final Logger LOG = LoggerFactory.getLogger(Uploader.class);

  /** How often deferred uploads look at the relay's lag again. */
  private static final Duration DEFERRED_CHECK = Duration.ofMillis(500);

  private final BinlogStore store;
  private final ObjectStore objects;
  private final UploadConfig config;
  private final Time time;
  private final Path stateDir;
  private final FileUpload upload;
  private final UploadBackoff backoff;
  private final UploadCounters counters;
  private final List<UploadListener> listeners = new CopyOnWriteArrayList<>();
  private final Object monitor = new Object();
  private final StoreListener storeListener =
      new StoreListener() {
        @Override
        public void fileClosed(FileMetadata metadata) {
          lastClosedSeen = metadata.name();
          wake();
        }

        @Override
        public void filesRemoved(List<String> names) {
          pruneNeeded = true;
          wake();
        }
      };
  private final ArchiveGate gate =
      new ArchiveGate() {
        @Override
        public boolean enabled() {
          return true;
        }

        @Override
        public boolean archived(String fileName) {
          return isArchived(fileName);
        }
      };

  private volatile UploadStatus status = UploadStatus.of(UploadStatus.State.STOPPED);
  private volatile String lastClosedSeen;
  private volatile boolean pruneNeeded = true;
  private volatile CatchUpDeferral.Gate deferral;
  private boolean stopping; // guarded by monitor
  private boolean woken; // guarded by monitor
  private Thread thread;
  // Uploader thread only:
  private String lastVerified;
  private String attemptFile;
  private long attemptStartNanos;

  /**
   * An uploader of {@code store}'s closed files into {@code objects} under {@link
   * UploadConfig#prefix()}, its state in {@link #stateDirectory}({@code store.directory()}).
   */
  public Uploader(BinlogStore store, ObjectStore objects, UploadConfig config, Time time) {
    this(store, objects, config, time, ChunkCodec.forReading(KeyRing.none()));
  }

  /**
   * The same, encoding each data object with {@code codec} (zstd and/or AES-GCM; staged in {@code
   * <data-dir>/archive/staging/} until VERIFIED).
   */
  public Uploader(
      BinlogStore store, ObjectStore objects, UploadConfig config, Time time, ChunkCodec codec) {
    this(
        store,
        objects,
        config,
        time,
        () -> ThreadLocalRandom.current().nextDouble(),
        StepHook.NONE,
        codec);
  }

  /** Tests: the jitter source and a hook at each step of an upload. */
  Uploader(
      BinlogStore store,
      ObjectStore objects,
      UploadConfig config,
      Time time,
      DoubleSupplier jitter,
      StepHook hook) {
    this(store, objects, config, time, jitter, hook, ChunkCodec.forReading(KeyRing.none()));
  }

  /** Tests: the same with an encoding. */
  Uploader(
      BinlogStore store,
      ObjectStore objects,
      UploadConfig config,
      Time time,
      DoubleSupplier jitter,
      StepHook hook,
      ChunkCodec codec) {
    this.store = store;
    this.objects = objects;
    this.config = config;
    this.time = time;
    this.stateDir = stateDirectory(store.directory());
    this.upload =
        new FileUpload(
            new UploadRateLimiter(config.maxUploadRate(), time).limit(objects),
            config,
            stateDir,
            store::openFile,
            hook,
            time,
            codec,
            StagedObject.directory(store.directory()));
    this.backoff = new UploadBackoff(config.firstBackoff(), config.maxBackoff(), jitter);
    this.counters = new UploadCounters(time::nanoseconds);
  }

  /** Where the upload states of a store in {@code dataDir} are kept. */
  public static Path stateDirectory(Path dataDir) {
    return dataDir.resolve("archive").resolve("uploads");
  }

  /** Creates the state directory (owner-only), listens to the store and starts the thread. */
  public void start() throws IOException {
    synchronized (monitor) {
      if (thread != null) {
        throw new IllegalStateException("the uploader was started already");
      }
      createPrivateDirectories(stateDir);
      for (FileMetadata f : store.files()) {
        if (f.closed()) {
          lastClosedSeen = f.name();
        }
      }
      store.addListener(storeListener);
      status = UploadStatus.of(UploadStatus.State.OK);
      thread = new Thread(this::run, THREAD_NAME);
      thread.setDaemon(true);
      thread.start();
    }
  }

  /** Looks for work now (also called by the store's {@code fileClosed}). */
  public void wake() {
    synchronized (monitor) {
      woken = true;
      monitor.notifyAll();
    }
  }

  /**
   * Lets the relay's catch-ups go first ({@link UploadConfig#deferral()}): while {@code lag} says
   * the relay is far behind its primary, no upload starts and none sends another part. Without a
   * call (or with {@link CatchUpDeferral#OFF}) uploads never wait for ingest. Call before {@link
   * #start} or at any time after.
   */
  public void deferWhileCatchingUp(IngestLag lag) {
    deferral = new CatchUpDeferral.Gate(config.deferral(), lag);
    wake();
  }

  /**
   * Stops the thread: it finishes the object-store call in progress (a part at most) and persists
   * its state; after {@code grace} it is interrupted, which abandons the call (a resumed upload
   * sends that part again).
   *
   * @return true if the thread ended
   */
  public boolean stop(Duration grace) {
    Thread t;
    synchronized (monitor) {
      stopping = true;
      monitor.notifyAll();
      t = thread;
    }
    store.removeListener(storeListener);
    if (t == null) {
      return true;
    }
    try {
      t.join(grace.toMillis());
      if (t.isAlive()) {
        LOG.warn("archive: the uploader did not stop within {}: interrupting it", grace);
        t.interrupt();
        t.join(grace.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!t.isAlive()) {
      status = UploadStatus.of(UploadStatus.State.STOPPED);
    }
    return !t.isAlive();
  }

  /** {@link #stop} with 30 seconds' grace. */
  @Override
  public void close() {
    stop(Duration.ofSeconds(30));
  }

  public void addListener(UploadListener listener) {
    listeners.add(listener);
  }

  public void removeListener(UploadListener listener) {
    listeners.remove(listener);
  }

  public UploadStatus status() {
    return status;
  }

  public UploadCounters counters() {
    return counters;
  }

  /** Retention's view: a file is archived once its upload is VERIFIED. */
  public ArchiveGate gate() {
    return gate;
  }

  /** Whether {@code name}'s upload is VERIFIED (reads its state file). */
  boolean isArchived(String name) {
    try {
      return UploadState.read(stateDir, name).phase() == Phase.VERIFIED;
    } catch (IOException | DamagedException | IllegalArgumentException e) {
      LOG.warn("archive: cannot tell whether {} is archived: {}", name, e.getMessage());
      return false;
    }
  }

  private void run() {
    LOG.info("archive: uploader started ({})", stateDir);
    while (!isStopping()) {
      try {
        if (pruneNeeded) {
          pruneNeeded = false;
          prune();
        }
        FileMetadata next = nextPending();
        if (next == null) {
          waitForWork(config.idleCheck());
          continue;
        }
        long dueMillis = next.lastEventTime() * 1000 + config.uploadDelay().toMillis();
        if (!config.uploadDelay().isZero() && time.milliseconds() < dueMillis) {
          Duration left = Duration.ofMillis(dueMillis - time.milliseconds());
          waitForWork(left.compareTo(config.idleCheck()) < 0 ? left : config.idleCheck());
          continue;
        }
        if (deferNow()) {
          waitForWork(DEFERRED_CHECK);
          continue;
        }
        attempt(next);
      } catch (ObjectStoreException e) {
        failed(FailureKind.of(e.kind()), e);
      } catch (IOException e) {
        failed(FailureKind.LOCAL_IO, e);
      } catch (RuntimeException e) {
        if (isStopping()) {
          break;
        }
        LOG.error("archive: unexpected failure in the uploader", e);
        failed(FailureKind.REJECTED, e);
      }
    }
    LOG.info("archive: uploader stopped");
  }

  private void attempt(FileMetadata file) throws IOException {
    if (!file.name().equals(attemptFile)) {
      attemptFile = file.name();
      attemptStartNanos = time.nanoseconds();
    }
    status = status.working(file.name());
    FileUpload.Outcome outcome;
    try {
      outcome = upload.advance(file, () -> isStopping() || deferNow());
    } catch (NoSuchFileException e) {
      if (store.file(file.name()).isEmpty()) {
        LOG.warn("archive: {} was removed from the store before it was archived", file.name());
        return;
      }
      throw e;
    }
    switch (outcome.result()) {
      case VERIFIED_SENT, VERIFIED_FOUND -> archived(file, outcome);
      case CONFLICT -> conflict(file.name(), outcome.reason());
      case STOPPED -> {
        if (counters.deferring()) {
          LOG.info(
              "archive: upload of {} paused while the relay catches up its primary", file.name());
          attemptFile = null; // its time counts from the resumed attempt
        }
      }
    }
  }

  /**
   * Whether uploads wait now for a catch-up (uploader thread); keeps the status and the counters in
   * step with the answer.
   */
  private boolean deferNow() {
    CatchUpDeferral.Gate g = deferral;
    boolean defer = g != null && g.defer(counters.pendingBytes());
    boolean was = counters.deferring();
    counters.deferring(defer);
    if (defer) {
      UploadStatus s = status;
      if (s.state() != UploadStatus.State.DEFERRED) {
        LOG.info(
            "archive: uploads wait while the relay catches up its primary ({} s behind; they"
                + " resume within {} s of it, or at {} bytes of files waiting)",
            Math.round(g.lastLag()),
            CatchUpDeferral.RESUME_WITHIN.toSeconds(),
            config.deferral().maxPendingBytes());
      }
      status =
          new UploadStatus(
              UploadStatus.State.DEFERRED,
              null,
              s.lastFailureKind(),
              s.lastError(),
              String.format(
                  "the relay is %d s behind its primary: uploads resume within %d s of it, or when"
                      + " the files waiting hold %d bytes (--archive-defer-max-pending)",
                  Math.round(g.lastLag()),
                  CatchUpDeferral.RESUME_WITHIN.toSeconds(),
                  config.deferral().maxPendingBytes()),
              s.lastErrorAt(),
              null);
    } else if (was) {
      LOG.info("archive: uploads resume");
      if (status.state() == UploadStatus.State.DEFERRED) {
        status = UploadStatus.of(UploadStatus.State.OK);
      }
    }
    return defer;
  }

  private void archived(FileMetadata file, FileUpload.Outcome outcome) {
    boolean sent = outcome.result() == FileUpload.Result.VERIFIED_SENT;
    if (sent) {
      counters.uploaded(file.size(), time.nanoseconds() - attemptStartNanos);
      LOG.info(
          "archive: {} archived ({} bytes, ETag {})",
          file.name(),
          file.size(),
          outcome.record().objectEtag());
    } else {
      counters.alreadyArchived();
    }
    lastVerified = file.name();
    attemptFile = null;
    backoff.reset();
    status = UploadStatus.of(UploadStatus.State.OK);
    if (outcome.record() != null) {
      for (UploadListener l : listeners) {
        try {
          l.archived(outcome.record(), sent);
        } catch (RuntimeException e) {
          LOG.warn("archive: a listener failed on {}", file.name(), e);
        }
      }
    }
  }

  private void conflict(String name, String reason) {
    if (status.state() != UploadStatus.State.CONFLICT) {
      LOG.error("archive: archiving stopped at {}: {}", name, reason);
    }
    status =
        new UploadStatus(
            UploadStatus.State.CONFLICT,
            name,
            null,
            reason,
            "give each relay its own archive prefix; archiving resumes after the state file is"
                + " deleted and the relay restarted",
            Instant.ofEpochMilli(time.milliseconds()),
            null);
  }

  private void failed(FailureKind kind, Exception e) {
    if (isStopping()) {
      return;
    }
    counters.failed(kind);
    Duration wait = kind.retryable() ? backoff.next() : config.slowRetry();
    Instant now = Instant.ofEpochMilli(time.milliseconds());
    String file = status.currentFile();
    status =
        new UploadStatus(
            kind.retryable() ? UploadStatus.State.RETRYING : UploadStatus.State.FAILING,
            file,
            kind,
            e.getMessage(),
            kind.advice(),
            now,
            now.plus(wait));
    LOG.warn(
        "archive: uploading {} failed ({}): {}; next attempt in {} ms. {}",
        file,
        kind,
        e.getMessage(),
        wait.toMillis(),
        kind.advice());
    pause(wait);
  }

  /**
   * The oldest closed, settled file not VERIFIED (null if none, or after a CONFLICT); also updates
   * the pending counters.
   */
  private FileMetadata nextPending() throws IOException {
    List<FileMetadata> files = store.files();
    Position durable = store.durableEnd();
    int durableIndex = durable == null ? -1 : indexOf(files, durable.file());
    int closedIndex = lastClosedSeen == null ? -1 : indexOf(files, lastClosedSeen);
    int from = lastVerified == null ? 0 : indexOf(files, lastVerified) + 1;
    FileMetadata first = null;
    long pendingFiles = 0;
    long pendingBytes = 0;
    for (int i = from; i < files.size(); i++) {
      FileMetadata f = files.get(i);
      if (!f.closed() || (i >= durableIndex && i > closedIndex)) {
        break;
      }
      if (first == null) {
        UploadState s;
        try {
          s = UploadState.read(stateDir, f.name());
        } catch (DamagedException e) {
          s = UploadState.queued(f.name());
        }
        if (s.phase() == Phase.VERIFIED) {
          lastVerified = f.name();
          continue;
        }
        if (s.phase() == Phase.CONFLICT) {
          conflict(f.name(), s.reason());
          counters.pending(files.size() - i, sizes(files, i), f.lastEventTime());
          return null;
        }
        first = f;
      }
      pendingFiles++;
      pendingBytes += f.size();
    }
    counters.pending(pendingFiles, pendingBytes, first == null ? 0 : first.lastEventTime());
    return first;
  }

  private static long sizes(List<FileMetadata> files, int from) {
    long bytes = 0;
    for (int i = from; i < files.size(); i++) {
      bytes += files.get(i).size();
    }
    return bytes;
  }

  private static int indexOf(List<FileMetadata> files, String name) {
    for (int i = files.size() - 1; i >= 0; i--) {
      if (files.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Deletes the state files of files the store no longer holds (older than its first file),
   * aborting an unfinished multipart upload one of them may name, and leftover temporary files.
   */
  private void prune() throws IOException {
    List<FileMetadata> files = store.files();
    Set<String> held = files.stream().map(FileMetadata::name).collect(Collectors.toSet());
    String first = files.isEmpty() ? null : files.get(0).name();
    boolean deleted = false;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(stateDir)) {
      for (Path p : entries) {
        String file = p.getFileName().toString();
        if (file.endsWith(UploadState.SUFFIX + ".tmp")) {
          deleted |= Files.deleteIfExists(p);
          continue;
        }
        if (!file.endsWith(UploadState.SUFFIX)) {
          continue;
        }
        String name = file.substring(0, file.length() - UploadState.SUFFIX.length());
        if (held.contains(name) || first == null || !olderThan(name, first)) {
          continue;
        }
        try {
          UploadState s = UploadState.read(stateDir, name);
          if (s.phase() != Phase.VERIFIED) {
            LOG.warn(
                "archive: {} was removed from the store before it was archived ({})",
                name,
                s.phase());
            if (s.phase() == Phase.UPLOADING && !s.uploadId().isEmpty()) {
              objects.abortMultipart(
                  ArchivedFileRecord.dataKey(config.prefix(), name), s.uploadId());
            }
          }
        } catch (DamagedException | IllegalArgumentException | ObjectStoreException e) {
          LOG.warn("archive: pruning {}: {}", p, e.getMessage());
        }
        deleted |= Files.deleteIfExists(p);
      }
    }
    if (deleted) {
      UploadState.forceDirectory(stateDir);
    }
    upload.pruneStaging(name -> held.contains(name) && !isArchived(name));
  }

  /** Bytes of encoded objects staged on local disk, waiting for their upload to be verified. */
  public long stagedBytes() {
    return upload.stagedBytes();
  }

  private static boolean olderThan(String name, String first) {
    try {
      return org.binlogrelay.storage.BinlogFileName.sequence(name)
          < org.binlogrelay.storage.BinlogFileName.sequence(first);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private boolean isStopping() {
    synchronized (monitor) {
      return stopping;
    }
  }

  /** Waits until woken, stopped or {@code most} passed. */
  private void waitForWork(Duration most) {
    synchronized (monitor) {
      try {
        time.waitOn(monitor, () -> stopping || woken, time.nanoseconds() + most.toNanos());
      } catch (InterruptedException e) {
        stopping = true;
      }
      woken = false;
    }
  }

  /**
   * Waits {@code d} or until stopped. A wake-up meanwhile (a file closed) does not end the wait,
   * but the pending counters are recomputed at once, so that a backlog growing during a long
   * back-off (the archive down for minutes) shows in the metrics and the status while it grows.
   */
  private void pause(Duration d) {
    long deadline = time.nanoseconds() + d.toNanos();
    while (true) {
      synchronized (monitor) {
        try {
          time.waitOn(monitor, () -> stopping || woken, deadline);
        } catch (InterruptedException e) {
          stopping = true;
        }
        boolean woke = woken;
        woken = false;
        if (stopping || !woke || time.nanoseconds() - deadline >= 0) {
          return;
        }
      }
      try {
        nextPending();
      } catch (IOException | RuntimeException e) {
        LOG.debug("archive: counting the pending files failed", e);
      }
    }
  }

  private static void createPrivateDirectories(Path dir) throws IOException {
    Path archive = dir.getParent();
    for (Path p : new Path[] {archive, dir}) {
      if (Files.isDirectory(p)) {
        continue;
      }
      try {
        Files.createDirectory(
            p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (UnsupportedOperationException e) {
        Files.createDirectories(p);
      }
    }
  }
}
