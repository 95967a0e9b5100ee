package org.binlogrelay.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.ReaderRegistry;
import org.binlogrelay.storage.retention.ArchiveRules;
import org.binlogrelay.storage.retention.Retention;
import org.binlogrelay.storage.retention.RetentionPolicy;
import org.binlogrelay.storage.retention.RetentionRun;

/**
 * Purges asked for through the admin API ({@code relayctl purge}, {@code POST
 * /api/v1/binlogs/purge}), and the store's close, which never overlaps one. A purge follows the
 * configured {@link Retention}'s rules (which files replicas still read, {@code
 * --purge-files-in-use}); without one, rules that keep everything but what is asked, made at the
 * first purge.
 *
 * <p>States: open, then closed by {@link #closeStore}; a purge needs the relay RUNNING (read from
 * the {@code relay} supplier; the relay sets CLOSING before it closes the store), so none starts
 * once the relay closes.
 *
 * <p>Thread-safety: thread-safe. A purge and {@link #closeStore} hold one lock for their whole run;
 * {@link #retentions()} never waits.
 */
final class ManualPurge {
  private final BinlogStore store;
  private final ReaderRegistry readers;
  private final Time time;

  /** The configured retention; null when no limit is configured. */
  private final Retention configured;

  private final Supplier<Relay.State> relay;

  /**
   * The archive's rules for the purges without a configured retention ({@link
   * ArchiveRules#none()}).
   */
  private final ArchiveRules archive;

  /** Held by a purge and by the store's close. */
  private final Object lock = new Object();

  /**
   * Made at the first purge without a configured retention; under {@link #lock}, read by {@link
   * #retentions}.
   */
  private volatile Retention keepEverything;

  /**
   * @param configured the configured retention, or null
   * @param relay the relay's state now; a purge needs RUNNING
   */
  ManualPurge(
      BinlogStore store,
      ReaderRegistry readers,
      Time time,
      Retention configured,
      Supplier<Relay.State> relay) {
    this(store, readers, time, configured, relay, ArchiveRules.none());
  }

  /**
   * @param archive with an archive: its rules, so that a purge without a configured retention keeps
   *     files not archived yet, as the configured one does
   */
  ManualPurge(
      BinlogStore store,
      ReaderRegistry readers,
      Time time,
      Retention configured,
      Supplier<Relay.State> relay,
      ArchiveRules archive) {
    this.archive = Objects.requireNonNull(archive, "archive");
    this.store = Objects.requireNonNull(store, "store");
    this.readers = Objects.requireNonNull(readers, "readers");
    this.time = Objects.requireNonNull(time, "time");
    this.configured = configured;
    this.relay = Objects.requireNonNull(relay, "relay");
  }

  /**
   * Purges the files before {@code firstKept}.
   *
   * @throws IllegalStateException if the relay is not running (a purge never overlaps the store's
   *     close)
   * @throws IllegalArgumentException if the store holds no {@code firstKept}
   */
  RetentionRun purge(String firstKept, boolean force) throws IOException {
    synchronized (lock) {
      relay.get().requireRunning();
      if (configured == null && keepEverything == null) {
        keepEverything =
            new Retention(store, RetentionPolicy.keepEverything(), readers, time, archive);
      }
      return (configured != null ? configured : keepEverything).purgeTo(firstKept, force);
    }
  }

  /** Closes the store once no purge runs. */
  void closeStore() throws IOException {
    synchronized (lock) {
      store.close();
    }
  }

  /**
   * The retentions that purged or purge (for their counters): the configured one, the manual one
   * once made.
   */
  List<Retention> retentions() {
    List<Retention> all = new ArrayList<>(2);
    if (configured != null) {
      all.add(configured);
    }
    Retention manual = keepEverything;
    if (manual != null) {
      all.add(manual);
    }
    return all;
  }
}
