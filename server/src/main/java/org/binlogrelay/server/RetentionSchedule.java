package org.binlogrelay.server;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreListener;
import org.binlogrelay.storage.retention.Retention;
import org.binlogrelay.storage.retention.RetentionRun;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Retention} on the relay's scheduled executor: once at start, {@code interval} after
 * each run (for the age limit), and, as MySQL purges at each rotation, soon after the store closes
 * a file (for the size limit: once the closed file is durable, since retention removes only durable
 * files). Runs asked for while one is queued are folded into it. {@link Retention} logs what it
 * removes and keeps; a failed run is logged here at ERROR with its cause and tried again later (a
 * retention that cannot remove files never stops replication). Ages are judged by the {@code Time}
 * given to the {@link Retention}.
 *
 * <p>Thread-safe: {@link #runOnce()} may be called from any thread (runs are serialised by {@link
 * Retention}).
 */
final class RetentionSchedule implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionSchedule.class);

  private final Retention retention;
  private final BinlogStore store;
  private final ScheduledExecutorService executor;
  private final AtomicBoolean queued = new AtomicBoolean();
  private final StoreListener onFileClosed =
      new StoreListener() {
        @Override
        public void fileClosed(FileMetadata metadata) {
          // Retention removes only files whose end is durable; the durable boundary passes it just
          // after this call.
          store
              .whenDurable(new Position(metadata.name(), metadata.size()))
              .thenRun(RetentionSchedule.this::runSoon);
        }
      };
  private ScheduledFuture<?> periodic;

  private RetentionSchedule(
      Retention retention, BinlogStore store, ScheduledExecutorService executor) {
    this.retention = retention;
    this.store = store;
    this.executor = executor;
  }

  /**
   * Schedules {@code retention} on {@code executor}: now, every {@code interval}, and after each
   * file {@code store} closes.
   */
  static RetentionSchedule start(
      Retention retention,
      BinlogStore store,
      ScheduledExecutorService executor,
      Duration interval) {
    Objects.requireNonNull(retention, "retention");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(executor, "executor");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("retention interval must be positive, got " + interval);
    }
    RetentionSchedule schedule = new RetentionSchedule(retention, store, executor);
    schedule.periodic =
        executor.scheduleWithFixedDelay(
            schedule::runOnce, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    store.addListener(schedule.onFileClosed);
    return schedule;
  }

  /**
   * Queues a run unless one is queued already; never blocks (called on the store's syncer thread,
   * and on the archive's uploader thread when a file is archived).
   */
  void runSoon() {
    if (queued.compareAndSet(false, true)) {
      try {
        executor.execute(
            () -> {
              queued.set(false);
              runOnce();
            });
      } catch (RejectedExecutionException e) {
        queued.set(false); // shutting down
      }
    }
  }

  /**
   * One run, logged; never throws (a failure is logged at ERROR). Returns the run, or null if it
   * failed.
   */
  RetentionRun runOnce() {
    try {
      return retention.run();
    } catch (Exception e) {
      LOG.error(
          "retention run failed; it is tried again at the next rotation or interval: {}",
          e.toString(),
          e);
      return null;
    }
  }

  /** Stops later runs (a run under way finishes). */
  @Override
  public void close() {
    store.removeListener(onFileClosed);
    if (periodic != null) {
      periodic.cancel(false);
    }
  }
}
