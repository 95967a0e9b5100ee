package org.binlogrelay.server.upstream;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.DoubleSupplier;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.StoreException;
import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's replica side: keeps one connection to the primary, copies its dump stream into a
 * {@link BinlogStore}, and reconnects (capped exponential backoff with jitter, see {@link Backoff}
 * and {@link ReconnectSchedule}) until {@link #stop}, a failure that reconnecting cannot cure
 * ({@link FailurePolicy}: purged binlog, same server_id, failed store, ...), or the same
 * deterministic failure (access denied, a binlog that does not continue the store, ...) {@link
 * FailurePolicy#MAX_IDENTICAL_FAILURES} times in a row without a transaction stored in between.
 * Those leave it {@link UpstreamStatus#FAILED} with the server's or store's text in {@link
 * UpstreamState#lastError()} and one ERROR line saying what to do. Transient failures (network, a
 * restarting or killing primary) are retried for as long as it takes, the first time after at most
 * the backoff's initial delay.
 *
 * <pre>
 *   NEW -start-> CONNECTING -first event-> STREAMING
 *                    ^  |                      |
 *                    |  +------ failure -------+--> BACKING_OFF (retry) --wait--> CONNECTING
 *                    |                         +--> FAILED (no retry)
 *                    |                         +--> WAITING_FOR_STORE (store not accepting writes)
 *                    +------ store accepts writes again ----+
 *   any -stop-> STOPPED
 * </pre>
 *
 * The thread's loop is in named steps: {@code run} does a pending switch ({@code switchIfAsked})
 * and then one connection ({@code connectOnce}), which connects and streams ({@code stream}) and
 * decides what follows a failure ({@code afterFailure}: wait for the store, back off and retry, or
 * FAIL), until a stop or FAILED.
 *
 * <p>Each connection resumes exactly where the store ends ({@link BinlogStore#startStream()}, which
 * also cuts a transaction the previous connection left incomplete); an empty store starts per
 * {@link UpstreamConfig#start()}. The store checks that every event continues what it holds, so
 * there is no gap and no duplicate across reconnections and relay restarts.
 *
 * <p>Liveness: the primary sends a heartbeat every {@link UpstreamConfig#heartbeatPeriod()} when
 * idle; a connection silent for {@link UpstreamConfig#deadAfter()} is dead and replaced.
 *
 * <p>Back-pressure: events are appended on the thread that reads the socket, one at a time; a slow
 * store slows the reading and TCP slows the primary. Nothing is buffered beyond the socket buffers.
 *
 * <p>Disk errors: when the store stops accepting writes (disk full, I/O error; {@link
 * BinlogStore#health()}), the connection is closed (nothing of the unfinished transaction is kept)
 * and the replicator, in {@link UpstreamStatus#WAITING_FOR_STORE}, calls {@link
 * BinlogStore#tryResume()} every {@link #STORE_RETRY} delay until the condition clears (space
 * freed, by the DBA or by retention), then reconnects where the store ends. A store that recovery
 * finds corrupt stops the replicator in FAILED.
 *
 * <p>Threads: one thread, {@code upstream-HOST:PORT}, does all the work and is the store's only
 * writer (do not append to the store elsewhere while it runs). It is never interrupted (an
 * interrupt would close the store's file channels); {@link #stop} closes the socket instead. {@link
 * #state()}, {@link #stop} and the listener methods are thread-safe. Listeners are called on the
 * replicator's thread at each status change.
 *
 * <p>Source switch ({@link #switchSource}): the connection to the current source is closed; on the
 * replicator's thread, with no connection writing, the new source is checked (it must contain the
 * store's GTIDs); then every later connection goes to it, and, since it did not write the stored
 * files, resumes by GTID into files of the relay's naming ({@link ResumePlan}, {@link RelayFiles}).
 * A refused switch leaves the replicator on its source.
 *
 * <p>Semi-sync ({@link UpstreamConfig#semiSync()}): transactions the primary flags are acknowledged
 * once the store has made them durable, by a thread of each connection ({@link AckSender}).
 *
 * <p>One-shot: after {@link #stop} or FAILED, make a new replicator (on the same store) to start
 * again. A new replicator pointed at another server than the one that wrote the stored files
 * resumes by GTID by itself, as after a switch.
 */
public final class UpstreamReplicator implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(UpstreamReplicator.class);

  /** How long {@link #close()} waits for the thread. */
  public static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Delays between attempts to resume a store that stopped on a disk error: 1 s doubling to 10 s.
   */
  static final Backoff STORE_RETRY =
      new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), 0.2);

  private final BinlogStore store;
  private final Time time;
  private final DoubleSupplier random;
  private volatile UpstreamConfig config;
  private volatile String name;
  private final IngestCounters counters = new IngestCounters();
  private final CopyOnWriteArrayList<UpstreamListener> listeners = new CopyOnWriteArrayList<>();
  private final Object lock = new Object();
  private final Thread thread;

  private volatile Phase phase;
  private volatile String primaryVersion;
  private volatile long primaryServerId;
  private volatile String tls;
  private volatile long connections;

  /**
   * When the current connection started streaming ({@link Time#nanoseconds()}), -1 before.
   * Replicator thread.
   */
  private long streamingSince = -1;

  private volatile Map<String, String> primaryVariables = Map.of();
  private volatile long lastErrorMillis;
  private boolean started;
  private boolean stopping;
  private PrimaryStream session;
  private SwitchRequest pendingSwitch;

  /** What changes together at a status change. */
  private record Phase(UpstreamStatus status, long sinceMillis, String lastError, int attempt) {}

  /** A switch asked for by {@link #switchSource}, done on the replicator's thread. */
  private record SwitchRequest(UpstreamConfig next, CompletableFuture<SourceSwitch> done) {}

  /** A replicator with the system clock. */
  public UpstreamReplicator(UpstreamConfig config, BinlogStore store) {
    this(config, store, Time.SYSTEM);
  }

  /**
   * @param time stamps the state (status changes, last event), measures how long each connection
   *     streamed, and times the waits between attempts ({@link Time#waitOn})
   */
  public UpstreamReplicator(UpstreamConfig config, BinlogStore store, Time time) {
    this(config, store, time, Math::random);
  }

  UpstreamReplicator(UpstreamConfig config, BinlogStore store, Time time, DoubleSupplier random) {
    this.config = Objects.requireNonNull(config, "config");
    this.store = Objects.requireNonNull(store, "store");
    this.time = Objects.requireNonNull(time, "time");
    this.random = Objects.requireNonNull(random, "random");
    this.name = threadName(config);
    this.phase = new Phase(UpstreamStatus.NEW, time.milliseconds(), null, 0);
    this.thread = new Thread(this::runToTheEnd, name);
    this.thread.setDaemon(true);
  }

  /** Starts the replicator's thread. */
  public void start() {
    synchronized (lock) {
      if (started) {
        throw new IllegalStateException(
            name + " was already started; make a new replicator to start again");
      }
      started = true;
    }
    LOG.info("{}: starting, {}", name, config);
    thread.start();
  }

  /**
   * Stops: closes the connection (or ends the wait between attempts) and waits for the thread.
   * Idempotent.
   *
   * @return true if the thread ended within {@code timeout} (it may be finishing a store append)
   */
  public boolean stop(Duration timeout) throws InterruptedException {
    PrimaryStream current;
    synchronized (lock) {
      stopping = true;
      current = session;
      lock.notifyAll();
      if (!started) {
        setPhase(UpstreamStatus.STOPPED, phase.lastError(), 0);
        return true;
      }
    }
    if (current != null) {
      current.abort();
    }
    thread.join(Math.max(1, timeout.toMillis()));
    return !thread.isAlive();
  }

  /** {@link #stop} with {@link #CLOSE_TIMEOUT}; logs if the thread did not end in time. */
  @Override
  public void close() {
    try {
      if (!stop(CLOSE_TIMEOUT)) {
        LOG.warn(
            "{}: the replicator thread did not end within {} of stop; it ends after its current store append",
            name,
            CLOSE_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Switches to another server of the same GTID topology (for example a replica promoted after the
   * primary failed): closes the connection to the current source, checks the new one on the
   * replicator's thread (its executed GTIDs must contain the store's, see {@link ResumePlan}), and
   * from then on connects only to it, resuming after the store's GTIDs with no gap and no
   * duplicate. Relay identity, heartbeat, semi-sync and backoff come from {@code next} too.
   * Thread-safe; one switch at a time.
   *
   * @param next the configuration with the new source's host, port and credentials
   * @param timeout how long to wait for the check
   * @return what the switch found
   * @throws SourceRefusedException if the new source cannot continue the store; the replicator goes
   *     on with its current source
   * @throws TimeoutException if the check did not finish in time (it goes on; the switch may still
   *     happen)
   * @throws IllegalStateException if the replicator is not running, or another switch is under way
   */
  public SourceSwitch switchSource(UpstreamConfig next, Duration timeout)
      throws SourceRefusedException, TimeoutException, InterruptedException {
    Objects.requireNonNull(next, "next");
    SwitchRequest request = new SwitchRequest(next, new CompletableFuture<>());
    PrimaryStream current;
    synchronized (lock) {
      if (!started || stopping || !thread.isAlive()) {
        throw new IllegalStateException(
            name
                + " is "
                + phase.status()
                + "; a switch needs a running replicator"
                + " (make a new one with the new source's configuration on the same store: it resumes by GTID)");
      }
      if (pendingSwitch != null) {
        throw new IllegalStateException(
            name + ": a switch to " + address(pendingSwitch.next()) + " is under way");
      }
      pendingSwitch = request;
      current = session;
      lock.notifyAll();
    }
    LOG.info("{}: switching from {} to {}", name, address(config), address(next));
    if (current != null) {
      current.abort();
    }
    try {
      return request.done().get(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SourceRefusedException refused) {
        throw new SourceRefusedException(refused.getMessage(), refused);
      }
      throw new IllegalStateException(
          name + ": the switch to " + address(next) + " failed: " + e.getCause(), e.getCause());
    }
  }

  /** A snapshot of what the replicator does and has done. Thread-safe. */
  public UpstreamState state() {
    Phase p = phase;
    UpstreamConfig c = config;
    return new UpstreamState(
        p.status(),
        p.sinceMillis(),
        p.lastError(),
        p.attempt(),
        connections,
        address(c),
        primaryVersion,
        primaryServerId,
        tls,
        counters.bytes,
        counters.events,
        counters.heartbeats,
        counters.transactions,
        counters.position,
        counters.lastEventMillis,
        counters.semiSync,
        counters.acksRequested,
        counters.acksSent,
        counters.lastAck);
  }

  /**
   * The primary's binlog variables as read at the last connection (lower-case name to value; {@code
   * PrimaryStream#PRIMARY_VARIABLES}), empty before one. Thread-safe.
   */
  public Map<String, String> primaryVariables() {
    return primaryVariables;
  }

  /**
   * When the last failure ({@link UpstreamState#lastError()}) happened, epoch milliseconds; 0 if
   * none.
   */
  public long lastErrorMillis() {
    return lastErrorMillis;
  }

  /** The newest transaction received and the failures by kind, for lag and metrics. Thread-safe. */
  public IngestStats ingestStats() {
    return counters.stats();
  }

  /**
   * Seconds behind the primary as {@code Seconds_Behind_Source} reads ({@link
   * IngestStats#secondsBehind}, the immediate source's commit times), or NaN when unknown: not
   * streaming, or nothing received yet. What the archive's uploads look at to let a catch-up go
   * first. Thread-safe.
   */
  public double secondsBehind() {
    Double behind =
        counters
            .stats()
            .secondsBehind(phase.status() == UpstreamStatus.STREAMING, time.milliseconds(), false);
    return behind == null ? Double.NaN : behind;
  }

  public void addListener(UpstreamListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  public void removeListener(UpstreamListener listener) {
    listeners.remove(listener);
  }

  /** The current configuration (after a switch: the new source's). */
  public UpstreamConfig config() {
    return config;
  }

  /**
   * {@link #run}, and whatever ends it, the replicator ends STOPPED or FAILED, never stuck in
   * another status.
   */
  private void runToTheEnd() {
    try {
      run();
    } catch (RuntimeException | Error e) {
      String text = "the replicator's thread failed unexpectedly: " + e;
      LOG.error("{}: stopped: {}", name, text, e);
      setPhase(UpstreamStatus.FAILED, text, phase.attempt());
      refusePendingSwitch("the replicator failed: " + text);
      throw e;
    }
  }

  /**
   * The connection loop: a pending switch first, then one connection ({@link #connectOnce}), until
   * a stop or FAILED. A switch starts the reconnection schedule afresh.
   */
  private void run() {
    ReconnectSchedule schedule = new ReconnectSchedule(config.backoff());
    Next next = Next.CONNECT;
    while (next == Next.CONNECT) {
      if (switchIfAsked()) {
        schedule = new ReconnectSchedule(config.backoff());
      }
      next = connectOnce(schedule);
    }
    if (next == Next.STOP) {
      LOG.info("{}: stopped at {}", name, counters.position);
      setPhase(UpstreamStatus.STOPPED, phase.lastError(), 0);
      refusePendingSwitch("the replicator was stopped");
    }
  }

  /** What the connection loop does after a step. */
  private enum Next {
    /**
     * Connect (again): after a failure that is retried, a store that accepts writes again, or for a
     * switch.
     */
    CONNECT,
    /** {@link #stop} was called: end STOPPED. */
    STOP,
    /** The replicator is FAILED (status set, switch refused): end. */
    END
  }

  /** How a connection ended: what ended it, and how long it streamed (zero if it never did). */
  private record Ended(Throwable failure, Duration streamed) {}

  /**
   * One connection: opens a session to the source (unless a stop or a switch came first), streams
   * until it ends, and decides what follows ({@link #afterFailure}).
   */
  private Next connectOnce(ReconnectSchedule schedule) {
    PrimaryStream s = new PrimaryStream(config, store, counters, time, new SessionProgress());
    synchronized (lock) {
      if (stopping) {
        return Next.STOP;
      }
      if (pendingSwitch != null) {
        return Next.CONNECT;
      }
      session = s;
    }
    Ended ended = stream(s);
    boolean switching;
    synchronized (lock) {
      session = null;
      if (stopping) {
        return Next.STOP;
      }
      switching = pendingSwitch != null;
    }
    if (switching) {
      LOG.info("{}: connection closed for the switch ({})", name, describe(ended.failure()));
      return Next.CONNECT;
    }
    return afterFailure(s, ended, schedule);
  }

  /**
   * Runs session {@code s} (CONNECTING, then STREAMING at its first event) until it ends; it always
   * ends.
   */
  private Ended stream(PrimaryStream s) {
    setPhase(UpstreamStatus.CONNECTING, phase.lastError(), phase.attempt());
    streamingSince = -1;
    Throwable failure;
    try {
      s.run();
      failure = new IllegalStateException("the dump session ended without an error");
    } catch (Throwable t) {
      failure = t;
    }
    Duration streamed =
        streamingSince < 0
            ? Duration.ZERO
            : Duration.ofNanos(Math.max(0, time.nanoseconds() - streamingSince));
    return new Ended(failure, streamed);
  }

  /**
   * After a connection failed: waits for the store if it stopped accepting writes ({@link
   * #awaitStore}), else asks the {@link ReconnectSchedule} whether and when to retry, and backs off
   * (BACKING_OFF) or fails (FAILED).
   */
  private Next afterFailure(PrimaryStream s, Ended ended, ReconnectSchedule schedule) {
    Throwable failure = ended.failure();
    if (!store.health().accepting()) {
      Next waited = awaitStore(describe(failure));
      if (waited == Next.CONNECT) {
        schedule.reset();
      }
      return waited;
    }
    counters.failed(failure);
    ReconnectSchedule.Decision next =
        schedule.next(failure, s.attempt(ended.streamed()), random.getAsDouble());
    if (!next.retry()) {
      fail(failure, next);
      return Next.END;
    }
    LOG.warn(
        "{}: connection lost: {}; reconnecting in {} ms (attempt {}{})",
        name,
        next.reason(),
        next.delay().toMillis(),
        next.attempt(),
        next.identical() > 1
            ? "; the same failure "
                + next.identical()
                + " times in a row, FAILED at "
                + FailurePolicy.MAX_IDENTICAL_FAILURES
            : "");
    setPhase(UpstreamStatus.BACKING_OFF, next.reason(), next.attempt());
    return waitUnlessStopped(next.delay()) ? Next.CONNECT : Next.STOP;
  }

  /**
   * Stops in FAILED: the one ERROR line (the reason, what to do, how to start again), the status,
   * and a pending switch refused.
   */
  private void fail(Throwable failure, ReconnectSchedule.Decision decision) {
    String line =
        name
            + ": FAILED: "
            + decision.reason()
            + ". What to do: "
            + FailurePolicy.advice(failure)
            + "; then start the upstream again (relayctl source start, or restart the relay)";
    if (FailurePolicy.expected(failure)) {
      LOG.error(line);
    } else {
      LOG.error(line, failure);
    }
    setPhase(UpstreamStatus.FAILED, decision.reason(), decision.attempt());
    refusePendingSwitch("the replicator failed: " + decision.reason());
  }

  /**
   * Waits, with no connection open, until the store accepts writes again ({@link
   * BinlogStore#tryResume()}).
   *
   * @param why what ended the connection (the store's error)
   * @return {@link Next#CONNECT} when the store accepts writes again (or a switch is pending),
   *     {@link Next#STOP} after {@link #stop}, {@link Next#END} when the store cannot be resumed
   *     (FAILED is set)
   */
  private Next awaitStore(String why) {
    String text = "the store stopped accepting writes (" + store.health().condition() + "): " + why;
    LOG.error(
        "{}: {}; disconnected from the primary, retrying the store every {}-{} s until it accepts writes"
            + " (free space in {} or fix the disk)",
        name,
        text,
        STORE_RETRY.initial().toSeconds(),
        STORE_RETRY.max().toSeconds(),
        store.directory());
    for (int tries = 1; ; tries++) {
      setPhase(UpstreamStatus.WAITING_FOR_STORE, text, tries);
      if (!waitUnlessStopped(STORE_RETRY.delay(tries, random.getAsDouble()))) {
        return Next.STOP;
      }
      synchronized (lock) {
        if (pendingSwitch != null) {
          // a switch needs no writes: the next round does it, then waits for the store again if
          // needed
          return Next.CONNECT;
        }
      }
      try {
        if (store.tryResume()) {
          LOG.info(
              "{}: the store accepts writes again after {} attempt(s); reconnecting where it ends",
              name,
              tries);
          return Next.CONNECT;
        }
      } catch (StoreException | IllegalStateException e) {
        String fatal = "the store cannot be resumed: " + describe(e);
        LOG.error("{}: stopped: {}", name, fatal, e);
        setPhase(UpstreamStatus.FAILED, fatal, tries);
        refusePendingSwitch("the replicator failed: " + fatal);
        return Next.END;
      }
    }
  }

  /** A switch asked for while the replicator ends is not done; its caller hears why at once. */
  private void refusePendingSwitch(String why) {
    SwitchRequest request;
    synchronized (lock) {
      request = pendingSwitch;
      pendingSwitch = null;
    }
    if (request != null) {
      request
          .done()
          .completeExceptionally(
              new SourceRefusedException(
                  "switch to " + address(request.next()) + " not done: " + why, null));
    }
  }

  /**
   * Does the switch {@link #switchSource} asked for, if any: checks the new source on a connection
   * of its own (the store has no writer meanwhile) and adopts its configuration, or refuses it.
   *
   * @return true if the replicator now follows a new source
   */
  private boolean switchIfAsked() {
    SwitchRequest request;
    PrimaryStream probe;
    synchronized (lock) {
      request = pendingSwitch;
      if (request == null) {
        return false;
      }
      if (stopping) {
        pendingSwitch = null;
        request
            .done()
            .completeExceptionally(
                new SourceRefusedException(
                    "switch to "
                        + address(request.next())
                        + " not done: the replicator was stopped",
                    null));
        return false;
      }
      probe = new PrimaryStream(request.next(), store, counters, time, PrimaryStream.Progress.NONE);
      session = probe;
    }
    UpstreamConfig previous = config;
    String to = address(request.next());
    try {
      setPhase(UpstreamStatus.CONNECTING, phase.lastError(), 0);
      probe.verifyHistory();
      config = request.next();
      name = threadName(request.next());
      Thread.currentThread().setName(name);
      SourceSwitch done =
          new SourceSwitch(
              address(previous), to, store.readableEnd(), store.executedGtids().toString());
      LOG.info(
          "{}: switched from {} to {}; the store ends at {} with GTIDs {}",
          name,
          done.from(),
          to,
          done.storeEnd(),
          done.storedGtids());
      request.done().complete(done);
      return true;
    } catch (IOException | ProtocolException | FatalUpstreamException | StoreException e) {
      String text =
          "switch from "
              + address(previous)
              + " to "
              + to
              + " refused: "
              + describe(e)
              + "; the relay stays with "
              + address(previous);
      LOG.warn("{}: {}", name, text);
      request.done().completeExceptionally(new SourceRefusedException(text, e));
      return false;
    } catch (RuntimeException e) {
      // a bug in the check (not a refusal): the switch is not done, and the replicator stays with
      // its source
      String text =
          "switch from "
              + address(previous)
              + " to "
              + to
              + " failed unexpectedly: "
              + e
              + "; the relay stays with "
              + address(previous);
      LOG.error("{}: {}", name, text, e);
      request.done().completeExceptionally(new SourceRefusedException(text, e));
      return false;
    } finally {
      synchronized (lock) {
        pendingSwitch = null;
        session = null;
      }
    }
  }

  private static String address(UpstreamConfig c) {
    return c.host() + ":" + c.port();
  }

  private static String threadName(UpstreamConfig c) {
    return "upstream-" + address(c);
  }

  /**
   * Waits {@code delay} on the {@link Time} given; false if {@link #stop} came first; returns early
   * (true) for a switch.
   */
  private boolean waitUnlessStopped(Duration delay) {
    long deadline = time.nanoseconds() + delay.toNanos();
    synchronized (lock) {
      try {
        time.waitOn(lock, () -> stopping || pendingSwitch != null, deadline);
      } catch (InterruptedException e) {
        // nobody interrupts this thread (see the class comment); if someone does, stop cleanly
        Thread.currentThread().interrupt();
        stopping = true;
      }
      return !stopping;
    }
  }

  private static String describe(Throwable failure) {
    return ReconnectSchedule.describe(failure);
  }

  private void setPhase(UpstreamStatus status, String lastError, int attempt) {
    Phase next = new Phase(status, time.milliseconds(), lastError, attempt);
    if (next.status() == phase.status()
        && Objects.equals(next.lastError(), phase.lastError())
        && next.attempt() == phase.attempt()) {
      return;
    }
    if (lastError != null
        && (!Objects.equals(lastError, phase.lastError())
            || status == UpstreamStatus.BACKING_OFF
            || status == UpstreamStatus.FAILED)) {
      lastErrorMillis = next.sinceMillis();
    }
    phase = next;
    UpstreamState snapshot = state();
    for (UpstreamListener l : listeners) {
      try {
        l.stateChanged(snapshot);
      } catch (RuntimeException e) {
        LOG.error("{}: listener {} failed on {}; replication goes on", name, l, snapshot, e);
      }
    }
  }

  /** Session callbacks: connection facts and the switch to STREAMING. */
  private final class SessionProgress implements PrimaryStream.Progress {
    @Override
    public void connected(PrimaryConnection connection, long serverId) {
      primaryVersion = connection.serverVersion();
      primaryServerId = serverId;
      tls = connection.tls();
    }

    @Override
    public void primaryVariables(Map<String, String> variables) {
      UpstreamReplicator.this.primaryVariables = Map.copyOf(variables);
    }

    @Override
    public void streaming(String requested) {
      streamingSince = time.nanoseconds();
      connections++;
      LOG.info("{}: streaming from {}", name, requested);
      setPhase(UpstreamStatus.STREAMING, phase.lastError(), 0);
    }
  }
}
