package org.binlogrelay.archive.retention;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.archive.ArchivedFileRecord;
import org.binlogrelay.archive.catalog.ArchiveCatalog;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive's own retention ({@code --archive-retention}): deletes archived files whose last
 * event is older than the retention, oldest first, stopping at the first file that is young enough
 * (or whose last event time is unknown), so that the archive stays contiguous. The newest archived
 * file is never deleted. Each file goes in two steps: its metadata object first, so that it stops
 * being "archived" (a relay that lists the archive meanwhile does not offer it), then its data
 * object. A failure stops the run; the next one resumes (a data object left without its metadata is
 * harmless: the uploader would overwrite it).
 *
 * <p>Local retention is a separate matter: it purges only archived files (storage's {@code
 * ArchiveGate}), so deleting from the archive never loses a file the relay still needs to keep.
 *
 * <p>Thread-safe: runs on a daemon thread of its own ({@code archive-retention}); {@link #runOnce}
 * may also be called directly (tests), serialized with it.
 */
public final class ArchiveRetention implements AutoCloseable {
  /** The default period between runs. */
  public static final Duration DEFAULT_PERIOD = Duration.ofMinutes(5);

  /** The thread's name. */
  public static final String THREAD_NAME = "archive-retention";

  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRetention.class);

  private final ArchiveCatalog catalog;
  private final ObjectStore objects;
  private final String prefix;
  private final Duration retention;
  private final Duration period;
  private final Time time;
  private final ScheduledThreadPoolExecutor executor;
  private final AtomicLong deletedFiles = new AtomicLong();
  private String lastFailure;

  /**
   * @param prefix the archive's key prefix
   * @param retention how long files are kept (positive)
   * @param period how often to look
   */
  public ArchiveRetention(
      ArchiveCatalog catalog,
      ObjectStore objects,
      String prefix,
      Duration retention,
      Duration period,
      Time time) {
    if (retention.isZero() || retention.isNegative()) {
      throw new IllegalArgumentException("the archive retention must be positive: " + retention);
    }
    this.catalog = catalog;
    this.objects = objects;
    this.prefix = prefix;
    this.retention = retention;
    this.period = period;
    this.time = time;
    this.executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, THREAD_NAME);
              t.setDaemon(true);
              return t;
            });
  }

  /** Runs every period, the first time after one period (the catalog is listed by then). */
  public void start() {
    try {
      executor.scheduleWithFixedDelay(
          this::runLogged, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /** Archived files deleted since the start. */
  public long deletedFiles() {
    return deletedFiles.get();
  }

  /**
   * Deletes the archived files older than the retention now (network).
   *
   * @return the files deleted
   * @throws org.binlogrelay.archive.objectstore.ObjectStoreException if a delete fails (the files
   *     before it are deleted)
   */
  public synchronized List<String> runOnce() throws java.io.IOException {
    List<ArchivedFileRecord> files = catalog.all();
    long cutoffSeconds = (time.milliseconds() - retention.toMillis()) / 1000;
    java.util.ArrayList<String> deleted = new java.util.ArrayList<>();
    for (int i = 0; i < files.size() - 1; i++) {
      ArchivedFileRecord r = files.get(i);
      long last = r.file().lastEventTime();
      if (last <= 0 || last >= cutoffSeconds) {
        break;
      }
      objects.delete(ArchivedFileRecord.metaKey(prefix, r.name()));
      catalog.forget(r.name());
      objects.delete(ArchivedFileRecord.dataKey(prefix, r.name()));
      deletedFiles.incrementAndGet();
      deleted.add(r.name());
      LOG.info(
          "Deleted {} ({} bytes, last event at {}) from the archive: older than"
              + " --archive-retention={}",
          r.name(),
          r.file().size(),
          java.time.Instant.ofEpochSecond(last),
          retention);
    }
    return deleted;
  }

  private void runLogged() {
    try {
      runOnce();
      lastFailure = null;
    } catch (Exception e) {
      String why = String.valueOf(e.getMessage());
      if (!why.equals(lastFailure)) {
        LOG.warn("The archive's retention could not delete old files (retrying): {}", why);
        lastFailure = why;
      }
    }
  }

  /** Stops the runs (waits for one in progress, up to 10 s). */
  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
