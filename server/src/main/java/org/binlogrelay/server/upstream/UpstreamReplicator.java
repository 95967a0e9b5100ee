package org.binlogrelay.server.upstream;

import java.io.Closeable;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoubleSupplier;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.ContinuityException;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's replica side: keeps one connection to the primary, copies its dump stream into a {@link
 * BinlogStore}, and reconnects forever (capped exponential backoff with jitter, see {@link Backoff}) until
 * {@link #stop} or a failure that reconnecting cannot cure ({@link FailurePolicy}: purged binlog, same
 * server_id, failed store, ...), which leaves it {@link UpstreamStatus#FAILED} with the server's or store's
 * text in {@link UpstreamState#lastError()}.
 *
 * <pre>
 *   NEW -start-> CONNECTING -first event-> STREAMING
 *                    ^  |                      |
 *                    |  +------ failure -------+--> BACKING_OFF (retry) --wait--> CONNECTING
 *                    |                         +--> FAILED (no retry)
 *   any -stop-> STOPPED
 * </pre>
 *
 * Each connection resumes exactly where the store ends ({@link BinlogStore#startStream()}, which also cuts a
 * transaction the previous connection left incomplete); an empty store starts per {@link
 * UpstreamConfig#start()}. The store checks that every event continues what it holds, so there is no gap and
 * no duplicate across reconnections and relay restarts.
 *
 * <p>Liveness: the primary sends a heartbeat every {@link UpstreamConfig#heartbeatPeriod()} when idle; a
 * connection silent for {@link UpstreamConfig#deadAfter()} is dead and replaced.
 *
 * <p>Back-pressure: events are appended on the thread that reads the socket, one at a time; a slow store slows
 * the reading and TCP slows the primary. Nothing is buffered beyond the socket buffers.
 *
 * <p>Threads: one thread, {@code upstream-HOST:PORT}, does all the work and is the store's only writer (do not
 * append to the store elsewhere while it runs). It is never interrupted (an interrupt would close the store's
 * file channels); {@link #stop} closes the socket instead. {@link #state()}, {@link #stop} and the listener
 * methods are thread-safe. Listeners are called on the replicator's thread at each status change.
 *
 * <p>One-shot: after {@link #stop} or FAILED, make a new replicator (on the same store) to start again.
 */
public final class UpstreamReplicator implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(UpstreamReplicator.class);
  /** How long {@link #close()} waits for the thread. */
  public static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final UpstreamConfig config;
  private final BinlogStore store;
  private final Time time;
  private final DoubleSupplier random;
  private final String name;
  private final IngestCounters counters = new IngestCounters();
  private final CopyOnWriteArrayList<UpstreamListener> listeners = new CopyOnWriteArrayList<>();
  private final Object lock = new Object();
  private final Thread thread;

  private volatile Phase phase;
  private volatile String primaryVersion;
  private volatile long primaryServerId;
  private volatile long connections;
  private boolean started;
  private boolean stopping;
  private DumpSession session;

  /** What changes together at a status change. */
  private record Phase(UpstreamStatus status, long sinceMillis, String lastError, int attempt) {}

  /** A replicator with the system clock. */
  public UpstreamReplicator(UpstreamConfig config, BinlogStore store) {
    this(config, store, Time.SYSTEM);
  }

  /**
   * @param time stamps the state (status changes, last event); waits between attempts use the JVM's clock
   */
  public UpstreamReplicator(UpstreamConfig config, BinlogStore store, Time time) {
    this(config, store, time, Math::random);
  }

  UpstreamReplicator(UpstreamConfig config, BinlogStore store, Time time, DoubleSupplier random) {
    this.config = Objects.requireNonNull(config, "config");
    this.store = Objects.requireNonNull(store, "store");
    this.time = Objects.requireNonNull(time, "time");
    this.random = Objects.requireNonNull(random, "random");
    this.name = "upstream-" + config.host() + ":" + config.port();
    this.phase = new Phase(UpstreamStatus.NEW, time.milliseconds(), null, 0);
    this.thread = new Thread(this::run, name);
    this.thread.setDaemon(true);
  }

  /** Starts the replicator's thread. */
  public void start() {
    synchronized (lock) {
      if (started) {
        throw new IllegalStateException(name + " was already started; make a new replicator to start again");
      }
      started = true;
    }
    log.info("{}: starting, {}", name, config);
    thread.start();
  }

  /**
   * Stops: closes the connection (or ends the wait between attempts) and waits for the thread. Idempotent.
   *
   * @return true if the thread ended within {@code timeout} (it may be finishing a store append)
   */
  public boolean stop(Duration timeout) throws InterruptedException {
    DumpSession current;
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
        log.warn("{}: the replicator thread did not end within {} of stop; it ends after its current store append",
            name, CLOSE_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A snapshot of what the replicator does and has done. Thread-safe. */
  public UpstreamState state() {
    Phase p = phase;
    return new UpstreamState(p.status(), p.sinceMillis(), p.lastError(), p.attempt(), connections, primaryVersion,
        primaryServerId, counters.bytes, counters.events, counters.heartbeats, counters.transactions,
        counters.position, counters.lastEventMillis);
  }

  public void addListener(UpstreamListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  public void removeListener(UpstreamListener listener) {
    listeners.remove(listener);
  }

  public UpstreamConfig config() {
    return config;
  }

  private void run() {
    int attempt = 0;
    int continuityFailures = 0;
    while (true) {
      DumpSession s = new DumpSession(config, store, counters, time, new SessionProgress());
      synchronized (lock) {
        if (stopping) {
          break;
        }
        session = s;
      }
      setPhase(UpstreamStatus.CONNECTING, phase.lastError(), attempt);
      Throwable failure;
      try {
        s.run();
        failure = new IllegalStateException("the dump session ended without an error");
      } catch (Throwable t) {
        failure = t;
      }
      synchronized (lock) {
        session = null;
        if (stopping) {
          break;
        }
      }
      if (s.madeProgress()) {
        attempt = 0;
        continuityFailures = 0;
      }
      continuityFailures = failure instanceof ContinuityException ? continuityFailures + 1 : 0;
      String text = describe(failure);
      if (!FailurePolicy.retry(failure, continuityFailures)) {
        log.error("{}: stopped: {}", name, text, failure);
        setPhase(UpstreamStatus.FAILED, text, attempt + 1);
        return;
      }
      attempt++;
      Duration delay = config.backoff().delay(attempt, random.getAsDouble());
      log.warn("{}: connection lost: {}; reconnecting in {} ms (attempt {})", name, text, delay.toMillis(), attempt);
      setPhase(UpstreamStatus.BACKING_OFF, text, attempt);
      if (!waitUnlessStopped(delay)) {
        break;
      }
    }
    log.info("{}: stopped at {}", name, counters.position);
    setPhase(UpstreamStatus.STOPPED, phase.lastError(), 0);
  }

  /** Waits {@code delay}; false if {@link #stop} came first. */
  private boolean waitUnlessStopped(Duration delay) {
    long deadline = System.nanoTime() + delay.toNanos();
    synchronized (lock) {
      while (!stopping) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return true;
        }
        try {
          lock.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          // nobody interrupts this thread (see the class comment); if someone does, stop cleanly
          Thread.currentThread().interrupt();
          stopping = true;
        }
      }
      return false;
    }
  }

  private static String describe(Throwable failure) {
    String message = failure.getMessage();
    return message == null ? failure.toString() : message;
  }

  private void setPhase(UpstreamStatus status, String lastError, int attempt) {
    Phase next = new Phase(status, time.milliseconds(), lastError, attempt);
    if (next.status() == phase.status() && Objects.equals(next.lastError(), phase.lastError())
        && next.attempt() == phase.attempt()) {
      return;
    }
    phase = next;
    UpstreamState snapshot = state();
    for (UpstreamListener l : listeners) {
      try {
        l.stateChanged(snapshot);
      } catch (RuntimeException e) {
        log.error("{}: listener {} failed on {}; replication goes on", name, l, snapshot, e);
      }
    }
  }

  /** Session callbacks: connection facts and the switch to STREAMING. */
  private final class SessionProgress implements DumpSession.Progress {
    @Override
    public void connected(PrimaryConnection connection, long serverId) {
      primaryVersion = connection.serverVersion();
      primaryServerId = serverId;
    }

    @Override
    public void streaming(Position start) {
      connections++;
      log.info("{}: streaming from {}", name, start);
      setPhase(UpstreamStatus.STREAMING, phase.lastError(), 0);
    }
  }
}
