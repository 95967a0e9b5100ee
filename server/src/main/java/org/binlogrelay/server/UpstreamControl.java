package org.binlogrelay.server;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.binlogrelay.server.metrics.UpstreamSuccession;
import org.binlogrelay.server.upstream.SourceRefusedException;
import org.binlogrelay.server.upstream.SourceSwitch;
import org.binlogrelay.server.upstream.StartPosition;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's control of its upstream: which {@link UpstreamReplicator} fills the store, from which
 * source, and the commands that start, stop and switch it (the admin API's, through {@link
 * RelayAdmin}). A replicator is one-shot, so each start (and each change while the replicator is
 * STOPPED or FAILED) makes a new one on the same store; a change while it runs is a switch by GTID
 * ({@link UpstreamReplicator#switchSource}).
 *
 * <pre>
 *   NO_PRIMARY (no source configured) -close-> CLOSED
 *   NOT_STARTED -follow-> FOLLOWING -stop-> STOPPED -start, change-> FOLLOWING
 *                           |  ^                         (a FAILED replicator is started again from FOLLOWING)
 *                           +--+ start (after FAILED), change
 *   any -close-> CLOSED
 * </pre>
 *
 * {@link #moveTo} is the one place the state changes; it rejects any other move. The replicator's
 * own status ({@link UpstreamStatus}) says whether it still runs: start refuses a replicator that
 * runs, and change switches it. Commands that start a replicator (start, change) also need the
 * relay RUNNING (its state is read from the {@code relay} supplier, so a command during the relay's
 * start or close is refused with the relay's state).
 *
 * <p>Logs through the {@link Relay}'s logger, as before this class was split out of it, so that log
 * lines and their logger name are the relay's.
 *
 * <p>Thread-safety: thread-safe. Commands and {@link #close} hold one lock for their whole run (a
 * stop waits for the replicator's thread, a switch for its check), so they run one at a time;
 * {@link #replicator()}, {@link #config()} and {@link #state()} never wait.
 */
final class UpstreamControl {
  private static final Logger LOG = LoggerFactory.getLogger(Relay.class);

  /** Where the control is; see the class comment for the moves. */
  enum State {
    /** No primary configured: the relay serves its store only; every command is refused. */
    NO_PRIMARY,
    /** Configured, not yet followed: the relay's start has not reached {@link #follow}. */
    NOT_STARTED,
    /** A replicator was started and not stopped by a command (it may have FAILED on its own). */
    FOLLOWING,
    /** Stopped by a command; start and change follow again. */
    STOPPED,
    /** The relay closes: the replicator was stopped and none starts any more. */
    CLOSED;

    boolean canMoveTo(State next) {
      return switch (this) {
        case NO_PRIMARY -> next == CLOSED;
        case NOT_STARTED -> next == FOLLOWING || next == CLOSED;
        case FOLLOWING, STOPPED -> next == FOLLOWING || next == STOPPED || next == CLOSED;
        case CLOSED -> false;
      };
    }
  }

  private final Time time;
  private final UpstreamSuccession succession;
  private final Supplier<Relay.State> relay;

  /** Held by each command and by {@link #close} for its whole run. */
  private final Object lock = new Object();

  private volatile State state;
  private volatile UpstreamConfig config;
  private volatile UpstreamReplicator replicator;

  /** Set by {@link #follow}; under {@link #lock}. */
  private BinlogStore store;

  /** The archive's end an empty store starts at, null without an archive; set by follow. */
  private StartPosition.ArchiveEnd archiveEnd;

  /**
   * @param configured the primary to follow; null for none
   * @param time the replicators' clock
   * @param succession hears each new replicator (the metrics' totals across replicators)
   * @param relay the relay's state now, checked by the commands that start a replicator
   */
  UpstreamControl(
      UpstreamConfig configured,
      Time time,
      UpstreamSuccession succession,
      Supplier<Relay.State> relay) {
    this.config = configured;
    this.time = Objects.requireNonNull(time, "time");
    this.succession = Objects.requireNonNull(succession, "succession");
    this.relay = Objects.requireNonNull(relay, "relay");
    this.state = configured == null ? State.NO_PRIMARY : State.NOT_STARTED;
  }

  /**
   * The relay's start: follows the configured primary into {@code store}, or logs that there is
   * none.
   */
  void follow(BinlogStore store) {
    follow(store, null);
  }

  /**
   * The relay's start with an archive: as {@link #follow(BinlogStore)}, and every replicator starts
   * an empty store where {@code archiveEnd} says the archive ends ({@link
   * StartPosition#afterArchive}).
   *
   * @param archiveEnd the archive's end, null without an archive
   */
  void follow(BinlogStore store, StartPosition.ArchiveEnd archiveEnd) {
    synchronized (lock) {
      this.archiveEnd = archiveEnd;
      if (state == State.NO_PRIMARY) {
        LOG.info("no primary configured: serving the stored binlogs only");
        return;
      }
      this.store = Objects.requireNonNull(store, "store");
      startReplicator(config);
    }
  }

  /**
   * Stops following the primary; the replicator's thread has ended when this returns true.
   *
   * @param timeout how long to wait for the replicator's thread
   * @throws IllegalStateException if no primary is configured
   */
  boolean stop(Duration timeout) throws InterruptedException {
    synchronized (lock) {
      UpstreamReplicator r = requireReplicator();
      LOG.info("upstream stop requested through the admin API");
      if (state != State.CLOSED) {
        moveTo(State.STOPPED);
      }
      return r.stop(timeout);
    }
  }

  /**
   * Follows the primary again with a new replicator, after a stop or a failure.
   *
   * @throws IllegalStateException if no primary is configured, the relay is not running, or the
   *     replicator still runs
   */
  void start() {
    synchronized (lock) {
      UpstreamReplicator r = requireReplicator();
      requireRunning();
      if (!ended(r)) {
        throw new IllegalStateException(
            "upstream is "
                + r.state().status()
                + ", already following "
                + r.state().source()
                + "; stop it first");
      }
      LOG.info(
          "upstream start requested through the admin API: following {}:{} again",
          config.host(),
          config.port());
      startReplicator(config);
    }
  }

  /**
   * Follows {@code next} from now on: switched by GTID while the replicator runs ({@link
   * UpstreamReplicator#switchSource}), else a new replicator on it (which resumes by GTID by
   * itself).
   *
   * @return the switch, or {@code null} when a new replicator was started
   * @throws IllegalStateException if no primary is configured or the relay is not running
   */
  SourceSwitch change(UpstreamConfig next, Duration timeout)
      throws SourceRefusedException, TimeoutException, InterruptedException {
    synchronized (lock) {
      UpstreamReplicator r = requireReplicator();
      requireRunning();
      if (ended(r)) {
        config = next;
        LOG.info(
            "upstream source changed through the admin API to {}:{} (the replicator was {}); starting it",
            next.host(),
            next.port(),
            r.state().status());
        startReplicator(next);
        return null;
      }
      SourceSwitch done = r.switchSource(next, timeout);
      config = r.config();
      return done;
    }
  }

  /**
   * The relay's close: stops the replicator (if any) and starts none any more. Idempotent.
   *
   * @throws IllegalStateException if the replicator's thread did not end within {@link
   *     UpstreamReplicator#CLOSE_TIMEOUT}
   */
  void close() throws InterruptedException {
    synchronized (lock) {
      if (state != State.CLOSED) {
        moveTo(State.CLOSED);
      }
      UpstreamReplicator r = replicator;
      if (r != null && !r.stop(UpstreamReplicator.CLOSE_TIMEOUT)) {
        throw new IllegalStateException(
            "the upstream thread did not end within " + UpstreamReplicator.CLOSE_TIMEOUT);
      }
    }
  }

  /**
   * Makes and starts a replicator for {@code c}; it replaces the current one, which must have
   * ended.
   */
  private void startReplicator(UpstreamConfig c) {
    moveTo(State.FOLLOWING);
    UpstreamConfig started =
        archiveEnd == null ? c : c.withStart(StartPosition.afterArchive(c.start(), archiveEnd));
    UpstreamReplicator next = new UpstreamReplicator(started, store, time);
    next.addListener(
        s -> {
          if (s.status() == UpstreamStatus.FAILED) {
            // the replicator's ERROR line said why and what to do; this one says what the relay
            // does meanwhile
            LOG.warn(
                "upstream stopped for good; the relay keeps serving the {} stored file(s), and /health answers"
                    + " DOWN until the upstream is started again (relayctl source start, or restart the relay; a purged"
                    + " binlog needs a new --data-dir or --start)",
                store.files().size());
          }
        });
    succession.replace(next);
    replicator = next;
    next.start();
  }

  /** The one place the state changes. Under {@link #lock}. */
  private void moveTo(State next) {
    if (!state.canMoveTo(next)) {
      throw new IllegalStateException(
          "the upstream control cannot move from " + state + " to " + next);
    }
    state = next;
  }

  private UpstreamReplicator requireReplicator() {
    UpstreamReplicator r = replicator;
    if (r == null) {
      throw new IllegalStateException("no primary is configured");
    }
    return r;
  }

  /**
   * The relay sets CLOSING before its close takes {@link #lock}, so no command starts a replicator
   * after it.
   */
  private void requireRunning() {
    relay.get().requireRunning();
  }

  private static boolean ended(UpstreamReplicator r) {
    UpstreamStatus s = r.state().status();
    return s == UpstreamStatus.STOPPED || s == UpstreamStatus.FAILED;
  }

  /** Where the control is now. */
  State state() {
    return state;
  }

  /** The upstream configuration now (after a change: the new source's); null without a primary. */
  UpstreamConfig config() {
    return config;
  }

  /** The current replicator; empty without a primary or before {@link #follow}. */
  Optional<UpstreamReplicator> replicator() {
    return Optional.ofNullable(replicator);
  }
}
