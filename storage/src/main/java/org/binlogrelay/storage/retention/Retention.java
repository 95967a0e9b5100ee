package org.binlogrelay.storage.retention;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.ReaderRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the oldest stored files per a {@link RetentionPolicy} ({@link #run()}, which the server
 * schedules; this class has no thread) or up to a named file ({@link #purgeTo}, like {@code PURGE
 * BINARY LOGS TO}). Files always go as a prefix of the store's order, through {@link
 * BinlogStore#removeFilesBefore}, which also moves {@link BinlogStore#purgedGtids()} to the start
 * set of the oldest file kept.
 *
 * <p>Never removed, whatever the policy: the file being written ({@link
 * BinlogStore#currentFile()}), a file that is not closed or whose end is not durable yet, and the
 * last stored file. Not removed unless forced: the file of the oldest reader registered in the
 * {@link ReaderRegistry} and every later file (readers register while no purge runs, see {@link
 * ReaderRegistry#whilePurging}).
 *
 * <p>With an archive ({@link ArchiveRules}): a file not archived is never removed, nor any file
 * after it ({@link RetentionRun#keptUnarchived()}, counted in {@link #keptUnarchivedFiles()}), not
 * even by a forced purge, unless {@link #purgeTo(String, boolean, boolean)} is told that unarchived
 * files may go (a WARN names them: they are then in neither tier). By default a registered reader
 * then holds only files that are not archived: an archived file is fetched back for it.
 *
 * <p>Age is judged by each file's last event timestamp ({@link FileMetadata#lastEventTime()}, epoch
 * seconds) against the clock given; a file whose time is unknown (0) never expires by age. Counters
 * are plain {@link AtomicLong}s for the server's metrics.
 *
 * <p>Thread-safe: runs are serialised (a run waits for another to finish).
 */
public final class Retention {
  private static final Logger LOG = LoggerFactory.getLogger(Retention.class);

  private final BinlogStore store;
  private final RetentionPolicy policy;
  private final ReaderRegistry registry;
  private final Time time;
  private final ArchiveRules archive;
  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong filesPurged = new AtomicLong();
  private final AtomicLong bytesPurged = new AtomicLong();
  private final AtomicLong forcedPurges = new AtomicLong();
  private final AtomicLong keptUnarchivedFiles = new AtomicLong();
  private final AtomicLong unarchivedPurges = new AtomicLong();

  /**
   * @param registry the readers to protect, {@code null} for none
   * @param time the clock ages are measured with
   */
  public Retention(BinlogStore store, RetentionPolicy policy, ReaderRegistry registry, Time time) {
    this(store, policy, registry, time, ArchiveRules.none());
  }

  /**
   * @param registry the readers to protect, {@code null} for none
   * @param time the clock ages are measured with
   * @param archive the archive's rules, {@link ArchiveRules#none()} without an archive
   */
  public Retention(
      BinlogStore store,
      RetentionPolicy policy,
      ReaderRegistry registry,
      Time time,
      ArchiveRules archive) {
    this.store = Objects.requireNonNull(store, "store");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.registry = registry;
    this.time = Objects.requireNonNull(time, "time");
    this.archive = Objects.requireNonNull(archive, "archive");
  }

  /** Removes what the policy says may go. */
  public synchronized RetentionRun run() throws IOException {
    runs.incrementAndGet();
    return purge(this::wantedByPolicy, policy.purgeFilesInUse(), false);
  }

  /**
   * Removes every file before {@code firstKept}, like {@code PURGE BINARY LOGS TO}, within the same
   * safety limits; files a reader needs stay unless {@code force}; with an archive, files not
   * archived stay whatever {@code force} says.
   *
   * @throws IllegalArgumentException if {@code firstKept} is not stored (MySQL: "Target log not
   *     found in binlog index")
   */
  public RetentionRun purgeTo(String firstKept, boolean force) throws IOException {
    return purgeTo(firstKept, force, false);
  }

  /**
   * {@link #purgeTo(String, boolean)}, and with {@code purgeUnarchived} also files that are not
   * archived yet: they are then lost from both tiers (logged at WARN, returned in {@link
   * RetentionRun#removedUnarchived()}, counted in {@link #unarchivedPurges()}). Without an archive
   * the flag changes nothing.
   *
   * @throws IllegalArgumentException if {@code firstKept} is not stored
   */
  public synchronized RetentionRun purgeTo(String firstKept, boolean force, boolean purgeUnarchived)
      throws IOException {
    runs.incrementAndGet();
    return purge(
        files -> {
          for (int i = 0; i < files.size(); i++) {
            if (files.get(i).name().equals(firstKept)) {
              return i;
            }
          }
          throw new IllegalArgumentException(
              "cannot purge up to "
                  + firstKept
                  + ": the store does not hold it (it holds "
                  + (files.isEmpty()
                      ? "no file"
                      : files.get(0).name() + " to " + files.get(files.size() - 1).name())
                  + ")");
        },
        force,
        purgeUnarchived);
  }

  /** Retention runs and manual purges so far. */
  public long runs() {
    return runs.get();
  }

  /** Files removed so far. */
  public long filesPurged() {
    return filesPurged.get();
  }

  /** Bytes of the files removed so far. */
  public long bytesPurged() {
    return bytesPurged.get();
  }

  /** Files removed although a registered reader still needed them (forced purges). */
  public long forcedPurges() {
    return forcedPurges.get();
  }

  /**
   * With an archive: how many files the last run or purge kept because they (or an earlier file)
   * were not archived yet, i.e. space waiting on the archive. 0 without an archive.
   */
  public long keptUnarchivedFiles() {
    return keptUnarchivedFiles.get();
  }

  /** Files removed although not archived (explicit purges only): lost from both tiers. */
  public long unarchivedPurges() {
    return unarchivedPurges.get();
  }

  /** How many leading files the policy wants gone (the index of the first file to keep). */
  private int wantedByPolicy(List<FileMetadata> files) {
    int n = files.size();
    int wanted = 0;
    if (!policy.maxAge().isZero()) {
      long cutoff = time.milliseconds() / 1000 - policy.maxAge().toSeconds();
      int i = 0;
      while (i < n && files.get(i).lastEventTime() != 0 && files.get(i).lastEventTime() < cutoff) {
        i++;
      }
      wanted = Math.max(wanted, i);
    }
    if (policy.maxTotalBytes() > 0) {
      long total = 0;
      for (FileMetadata f : files) {
        total += f.size();
      }
      int i = 0;
      while (i < n && total > policy.maxTotalBytes()) {
        total -= files.get(i).size();
        i++;
      }
      wanted = Math.max(wanted, i);
    }
    if (policy.maxFiles() > 0) {
      wanted = Math.max(wanted, n - policy.maxFiles());
    }
    return wanted;
  }

  /** Decides (with readers kept from registering) and removes. */
  private RetentionRun purge(Wanted wanted, boolean force, boolean purgeUnarchived)
      throws IOException {
    try {
      if (registry == null) {
        return decideAndRemove(wanted, force, purgeUnarchived, Optional.empty());
      }
      return registry.whilePurging(
          oldest -> {
            try {
              return decideAndRemove(wanted, force, purgeUnarchived, oldest);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private RetentionRun decideAndRemove(
      Wanted wanted, boolean force, boolean purgeUnarchived, Optional<Position> oldestReader)
      throws IOException {
    List<FileMetadata> files = store.files();
    if (files.size() < 2) {
      keptUnarchivedFiles.set(0);
      return RetentionRun.nothing();
    }
    PurgePlan plan =
        PurgePlan.decide(
            files,
            store.currentFile().orElse(null),
            store.durableEnd(),
            wanted.firstKept(files),
            oldestReader,
            force,
            archive,
            purgeUnarchived);
    keptUnarchivedFiles.set(plan.keptUnarchived().size());
    if (plan.firstKept() == 0) {
      logKept(plan, oldestReader);
      return new RetentionRun(
          List.of(),
          0,
          plan.wanted(),
          plan.keptForReaders(),
          plan.keptUnsafe(),
          0,
          plan.keptUnarchived(),
          List.of());
    }
    long bytes = 0;
    for (int i = 0; i < plan.firstKept(); i++) {
      bytes += files.get(i).size();
    }
    List<String> removed = store.removeFilesBefore(files.get(plan.firstKept()).name());
    filesPurged.addAndGet(removed.size());
    bytesPurged.addAndGet(bytes);
    forcedPurges.addAndGet(plan.forced());
    unarchivedPurges.addAndGet(plan.removedUnarchived().size());
    if (!plan.removedUnarchived().isEmpty()) {
      LOG.warn(
          "Retention removed {} although not archived, as the purge asked: they are lost from both"
              + " tiers (no replica, PITR or relay bootstrapped from the archive can read them"
              + " now)",
          plan.removedUnarchived());
    }
    LOG.info(
        "Retention removed {} ({} bytes){}; purged GTIDs now '{}'",
        removed,
        bytes,
        plan.forced() > 0
            ? ", "
                + plan.forced()
                + " of them still needed by the reader at "
                + oldestReader.orElse(null)
            : "",
        store.purgedGtids().toString().replace("\n", ""));
    logKept(plan, oldestReader);
    return new RetentionRun(
        removed,
        bytes,
        plan.wanted(),
        plan.keptForReaders(),
        plan.keptUnsafe(),
        plan.forced(),
        plan.keptUnarchived(),
        plan.removedUnarchived());
  }

  private static void logKept(PurgePlan plan, Optional<Position> oldestReader) {
    List<String> forReaders = plan.keptForReaders();
    List<String> unsafe = plan.keptUnsafe();
    if (!plan.keptUnarchived().isEmpty()) {
      LOG.info(
          "Retention keeps {} because {} is not archived yet; they go once the archive has them"
              + " (check the archive's upload backlog if this persists)",
          plan.keptUnarchived(),
          plan.keptUnarchived().get(0));
    }
    if (!forReaders.isEmpty()) {
      LOG.info(
          "Retention keeps {} because a reader is at {}; it goes once the reader moves on (or set"
              + " purgeFilesInUse to force it)",
          forReaders,
          oldestReader.orElse(null));
    }
    if (!unsafe.isEmpty()) {
      LOG.debug("Retention keeps {}: being written, not closed or not durable yet", unsafe);
    }
  }

  /** How many leading files to remove, given the stored files. */
  @FunctionalInterface
  private interface Wanted {
    int firstKept(List<FileMetadata> files);
  }
}
