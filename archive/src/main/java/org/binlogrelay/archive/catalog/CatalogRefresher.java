package org.binlogrelay.archive.catalog;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an {@link ArchiveCatalog} up to date on a daemon thread of its own ({@code
 * archive-catalog}): a {@link ArchiveCatalog#refresh} (new keys only) at the start (a full {@link
 * ArchiveCatalog#reconcile} if the local copies were not all good) and every period, with a
 * reconcile every {@link #RECONCILE_EVERY} refreshes so that files deleted by another relay
 * disappear. The start never waits for the network. A refresh that fails keeps the last known
 * catalog, logs why (once per distinct reason) and is retried after a back-off (1 s doubling up to
 * the period).
 *
 * <p>Thread-safe: {@link #start}, {@link #refreshSoon} and {@link #close} may be called from any
 * thread.
 */
public final class CatalogRefresher implements AutoCloseable {
  /** The default period between refreshes. */
  public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(60);

  /** One refresh in this many lists every key. */
  public static final int RECONCILE_EVERY = 10;

  /** The thread's name. */
  public static final String THREAD_NAME = "archive-catalog";

  private static final Logger LOG = LoggerFactory.getLogger(CatalogRefresher.class);
  private static final long FIRST_RETRY_MILLIS = 1000;

  private final ArchiveCatalog catalog;
  private final Duration period;
  private final ScheduledThreadPoolExecutor executor;
  private final AtomicLong refreshes = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private long retryMillis = FIRST_RETRY_MILLIS;
  private boolean reconcileNext;
  private String lastFailure;

  public CatalogRefresher(ArchiveCatalog catalog, Duration period) {
    this.catalog = catalog;
    this.period = period;
    this.executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, THREAD_NAME);
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Schedules the first refresh now, in the background.
   *
   * @param reconcileFirst whether it lists every key (the local copies were damaged)
   */
  public void start(boolean reconcileFirst) {
    reconcileNext = reconcileFirst;
    schedule(0);
  }

  /** Asks for a refresh as soon as the thread is free (e.g. after a file was archived). */
  public void refreshSoon() {
    schedule(0);
  }

  /** Refreshes that succeeded since the start. */
  public long refreshes() {
    return refreshes.get();
  }

  /** Refreshes that failed since the start. */
  public long failures() {
    return failures.get();
  }

  private void schedule(long delayMillis) {
    try {
      executor.schedule(this::runOnce, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /** One refresh, then the next one scheduled; on the refresher's thread only. */
  private void runOnce() {
    long n = refreshes.get() + failures.get();
    boolean full = reconcileNext || (n > 0 && n % RECONCILE_EVERY == 0);
    long next;
    try {
      if (full) {
        catalog.reconcile();
        reconcileNext = false;
      } else {
        catalog.refresh();
      }
      refreshes.incrementAndGet();
      if (lastFailure != null) {
        LOG.info("The archive's catalog is up to date again: {}", catalog);
        lastFailure = null;
      }
      retryMillis = FIRST_RETRY_MILLIS;
      next = period.toMillis();
    } catch (Exception e) {
      failures.incrementAndGet();
      String why = String.valueOf(e.getMessage());
      if (!why.equals(lastFailure)) {
        LOG.warn(
            "Could not list the archive (keeping the {} files known, retrying): {}",
            catalog.view().size(),
            why);
        lastFailure = why;
      }
      next = retryMillis;
      retryMillis = Math.min(retryMillis * 2, period.toMillis());
    }
    if (executor.getQueue().isEmpty()) {
      schedule(next);
    }
  }

  /** Stops refreshing (waits for a refresh in progress, up to 10 s). */
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
