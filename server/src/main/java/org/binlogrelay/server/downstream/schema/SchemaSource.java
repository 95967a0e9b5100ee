package org.binlogrelay.server.downstream.schema;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.query.MetadataStatement;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.server.downstream.sql.ErrorMessages;
import org.binlogrelay.server.upstream.QueryConnection;
import org.binlogrelay.server.upstream.ServerEndpoint;
import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's schema source: the MySQL or MariaDB server it forwards statements that read table
 * schemas to, and the small pool of connections it asks it through. Nothing is opened until a
 * client asks; then:
 *
 * <ul>
 *   <li>at most {@code maxConnections} connections, each running one statement at a time, on as
 *       many worker threads ({@code schema-source-N}, daemons): the blocking client code never runs
 *       on a Netty event loop;
 *   <li>at most {@code maxWaiting} statements wait for a worker; one more is refused at once
 *       (1430);
 *   <li>every answer within {@code timeout} of {@link #forward}: when it passes, the client gets
 *       1430 and the connection in use, if any, is closed, which ends the worker's blocked read;
 *   <li>a connection is used again if it answered; one unused for {@code idleTimeout} is closed
 *       instead; one taken from the pool that fails is replaced once (the server may have closed it
 *       after its wait_timeout), a read timeout excepted;
 *   <li>the statement is written for the connection it runs on ({@link MetadataStatement#sql}: its
 *       sql_mode decides the quoting), so nothing the client typed reaches the server as text; the
 *       connection answers in the client's {@code character_set_results}, so column definitions and
 *       values are what the client would get from the server directly.
 * </ul>
 *
 * The server's answer, ERR included, goes to the client as it came; only failures to get one are
 * the relay's own errors ({@link SchemaErrors}). A change between reachable and unreachable is
 * logged once, not per statement.
 *
 * <p>Thread-safe. {@link #close()} stops the workers, closes every connection and answers what
 * still waits.
 */
public final class SchemaSource implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaSource.class);

  /**
   * The largest packet read from the server: one frame, so that every row passes on as one packet.
   */
  static final int MAX_PAYLOAD = 0xFFFFFE;

  /** What the log last said about the server. */
  private enum Health {
    UNKNOWN,
    REACHABLE,
    UNREACHABLE
  }

  private final SchemaSourceConfig config;
  private final SchemaConnection.Opener opener;
  private final Time time;
  private final ThreadPoolExecutor workers;

  /** Connections not in use, the most recently used first; guarded by itself. */
  private final Deque<Idle> idle = new ArrayDeque<>();

  private final Set<Request> running = ConcurrentHashMap.newKeySet();
  private final AtomicReference<Health> health = new AtomicReference<>(Health.UNKNOWN);
  private volatile boolean closed;

  /** A connection back in the pool, and since when (monotonic nanoseconds). */
  private record Idle(SchemaConnection connection, long since) {}

  /**
   * A schema source that connects to {@code config}'s server with the relay's MySQL client. Its
   * sockets time out only after twice the timeout: a backstop, so that the deadline of {@link
   * #forward} is what ends a wait and the client always reads the same error for it.
   *
   * @param time the clock of idle connections ({@link Time#nanoseconds()})
   */
  public SchemaSource(SchemaSourceConfig config, Time time) {
    this(config, ServerSchemaConnection.opener(backstop(config.endpoint()), MAX_PAYLOAD), time);
  }

  private static ServerEndpoint backstop(ServerEndpoint e) {
    return new ServerEndpoint(
        e.role(),
        e.host(),
        e.port(),
        e.user(),
        e.password(),
        e.connectTimeout().multipliedBy(2),
        e.tls());
  }

  /**
   * @param opener opens connections (tests inject faults here)
   * @param time the clock of idle connections ({@link Time#nanoseconds()})
   */
  SchemaSource(SchemaSourceConfig config, SchemaConnection.Opener opener, Time time) {
    this.config = config;
    this.opener = opener;
    this.time = time;
    AtomicInteger threads = new AtomicInteger();
    this.workers =
        new ThreadPoolExecutor(
            config.maxConnections(),
            config.maxConnections(),
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(config.maxWaiting()),
            r -> {
              Thread t = new Thread(r, "schema-source-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    workers.allowCoreThreadTimeOut(true);
  }

  public SchemaSourceConfig config() {
    return config;
  }

  /**
   * Forwards {@code statement}; the answer completes within the timeout, always normally: the
   * server's answer, or the relay's 1429 / 1430 saying why there is none.
   *
   * @param currentDatabase the client's current database (fills in unqualified names), or null
   * @param resultsCharset the client's {@code character_set_results}, or null for none
   */
  public CompletableFuture<QueryResponse> forward(
      MetadataStatement statement, String currentDatabase, String resultsCharset) {
    if (closed) {
      return CompletableFuture.completedFuture(error(SchemaErrors.failed("the relay is stopping")));
    }
    Request request = new Request(statement, currentDatabase, resultsCharset);
    try {
      workers.execute(request);
    } catch (RejectedExecutionException e) {
      LOG.debug("{}: refused a statement, {} are waiting", name(), config.maxWaiting());
      return CompletableFuture.completedFuture(
          error(
              SchemaErrors.failed(
                  config.maxWaiting()
                      + " statements are"
                      + " already waiting for "
                      + name()
                      + "; try again later")));
    }
    request.answer.orTimeout(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
    return request.answer.handle(
        (answer, failure) -> {
          if (failure == null) {
            return answer;
          }
          request.abort();
          if (failure instanceof TimeoutException) {
            unreachable("no answer within " + config.timeout().toMillis() + " ms");
            return error(
                SchemaErrors.failed(
                    name()
                        + " did not answer within "
                        + config.timeout().toMillis()
                        + " ms (--schema-source-timeout)"));
          }
          return error(SchemaErrors.failed(name() + ": " + failure));
        });
  }

  /** Connections open now, in use or idle (for tests and the log). */
  int openConnections() {
    synchronized (idle) {
      return idle.size() + (int) running.stream().filter(r -> r.current != null).count();
    }
  }

  private String name() {
    return "schema source " + config.endpoint().address();
  }

  private static QueryResponse error(ErrPacket err) {
    return new QueryResponse.Err(err);
  }

  private SchemaConnection takeIdle() {
    long now = time.nanoseconds();
    synchronized (idle) {
      while (!idle.isEmpty() && now - idle.peekLast().since() > config.idleTimeout().toNanos()) {
        idle.pollLast().connection().close();
      }
      Idle first = idle.pollFirst();
      return first == null ? null : first.connection();
    }
  }

  private void release(SchemaConnection connection) {
    synchronized (idle) {
      if (closed) {
        connection.close();
      } else {
        idle.addFirst(new Idle(connection, time.nanoseconds()));
      }
    }
  }

  private void reachable(SchemaConnection connection) {
    Health before = health.getAndSet(Health.REACHABLE);
    if (before == Health.UNKNOWN) {
      LOG.info(
          "{} connected as '{}' ({})", name(), config.endpoint().user(), connection.describe());
    } else if (before == Health.UNREACHABLE) {
      LOG.info("{} answers again ({})", name(), connection.describe());
    }
  }

  private void unreachable(String reason) {
    if (health.getAndSet(Health.UNREACHABLE) != Health.UNREACHABLE) {
      LOG.warn(
          "{}: {}; statements that read table schemas get error 1429 or 1430 until it answers again",
          name(),
          reason);
    } else {
      LOG.debug("{}: {}", name(), reason);
    }
  }

  /** The failure's message, after the schema source's name unless it names its address already. */
  private String detail(Throwable e) {
    String m = message(e);
    return m.contains(config.endpoint().address()) ? m : name() + ": " + m;
  }

  private static String message(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
  }

  /**
   * Stops the workers, closes every connection and answers the statements still waiting.
   * Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    List<Runnable> waiting = workers.shutdownNow();
    for (Runnable r : waiting) {
      ((Request) r).answer.complete(error(SchemaErrors.failed("the relay is stopping")));
    }
    for (Request r : running) {
      r.abort();
    }
    synchronized (idle) {
      for (Idle i : idle) {
        i.connection().close();
      }
      idle.clear();
    }
  }

  /**
   * One forwarded statement: runs on a worker, completes {@link #answer} unless the timeout did
   * first.
   */
  private final class Request implements Runnable {
    final CompletableFuture<QueryResponse> answer = new CompletableFuture<>();
    private final MetadataStatement statement;
    private final String currentDatabase;
    private final String resultsCharset;

    /** The socket being connected, then the connection in use; what {@link #abort} closes. */
    private volatile Socket connecting;

    volatile SchemaConnection current;

    Request(MetadataStatement statement, String currentDatabase, String resultsCharset) {
      this.statement = statement;
      this.currentDatabase = currentDatabase;
      this.resultsCharset = resultsCharset;
    }

    @Override
    public void run() {
      if (answer.isDone() || closed) {
        answer.complete(error(SchemaErrors.failed("the relay is stopping")));
        return;
      }
      running.add(this);
      try {
        QueryResponse response = attempt();
        if (response != null) {
          answer.complete(response);
        }
      } finally {
        running.remove(this);
      }
    }

    /** The answer; null if the timeout already gave the client one. */
    private QueryResponse attempt() {
      SchemaConnection pooled = takeIdle();
      if (pooled != null) {
        try {
          return forwardOn(pooled, true);
        } catch (StaleConnection e) {
          LOG.debug(
              "{}: a pooled connection failed ({}); opening another",
              name(),
              message(e.getCause()));
        }
      }
      Socket socket = new Socket();
      connecting = socket;
      SchemaConnection fresh;
      try {
        if (answer.isDone()) {
          return null;
        }
        fresh = opener.open(socket);
      } catch (IOException | RuntimeException e) {
        closeQuietly(socket);
        if (answer.isDone()) {
          return null;
        }
        unreachable(message(e));
        return error(SchemaErrors.unreachable(detail(e)));
      } finally {
        connecting = null;
      }
      reachable(fresh);
      try {
        return forwardOn(fresh, false);
      } catch (StaleConnection e) {
        throw new IllegalStateException("a new connection is never stale", e);
      }
    }

    private QueryResponse forwardOn(SchemaConnection connection, boolean pooled)
        throws StaleConnection {
      current = connection;
      if (answer.isDone()) {
        current = null;
        connection.close();
        return null;
      }
      String sql;
      try {
        sql =
            statement.sql(
                new MetadataStatement.Rendering(currentDatabase, connection.backslashEscapes()));
      } catch (IllegalStateException e) {
        current = null;
        release(connection);
        return error(ErrorMessages.noDatabaseSelected());
      }
      try {
        connection.resultsCharset(resultsCharset);
        QueryResponse response = connection.forward(sql, config.maxAnswerBytes());
        current = null;
        release(connection);
        return response;
      } catch (QueryConnection.AnswerTooLargeException e) {
        current = null;
        connection.close();
        LOG.info("{}: the answer to '{}' is over {} bytes; refused", name(), sql, e.limit());
        return error(
            SchemaErrors.failed(
                name()
                    + " answered with more than "
                    + e.limit()
                    + " bytes, more than the"
                    + " relay passes on; narrow the statement (LIKE, WHERE)"));
      } catch (IOException | RuntimeException e) {
        current = null;
        connection.close();
        if (answer.isDone()) {
          return null;
        }
        if (pooled && e instanceof IOException && !(e instanceof SocketTimeoutException)) {
          throw new StaleConnection(e);
        }
        unreachable(message(e));
        return error(SchemaErrors.failed(detail(e)));
      }
    }

    /** Closes what the worker blocks on; after the timeout or at {@link SchemaSource#close()}. */
    void abort() {
      Socket s = connecting;
      if (s != null) {
        closeQuietly(s);
      }
      SchemaConnection c = current;
      if (c != null) {
        c.close();
      }
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // nothing more to do for a socket that is being given up
    }
  }

  /** A pooled connection failed before answering: worth one attempt on a new one. */
  private static final class StaleConnection extends Exception {
    private static final long serialVersionUID = 1L;

    StaleConnection(Throwable cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }
}
