package org.binlogrelay.server.downstream.schema;

import java.time.Duration;
import java.util.Objects;
import org.binlogrelay.server.upstream.ServerEndpoint;

/**
 * How the relay reaches its schema source, the server it forwards statements that read table
 * schemas to. Immutable; {@link #toString()} hides the password.
 *
 * @param endpoint the server, its account and TLS; its connect timeout bounds connecting and also
 *     each answer, from the moment the client's statement arrives (waiting for a free connection
 *     included)
 * @param maxConnections connections to the server at most, opened on demand; as many statements run
 *     at once, the others wait (at most {@link #maxWaiting()} of them)
 * @param maxAnswerBytes the largest answer (column definitions and rows) passed on; a larger one is
 *     an error
 * @param idleTimeout a connection unused this long is closed instead of being used again
 */
public record SchemaSourceConfig(
    ServerEndpoint endpoint, int maxConnections, long maxAnswerBytes, Duration idleTimeout) {

  /** Connections at most, by default. */
  public static final int DEFAULT_MAX_CONNECTIONS = 4;

  /** Each answer within this, by default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /** The largest answer passed on: 16 MiB, below the largest packet (every row fits one). */
  public static final long DEFAULT_MAX_ANSWER_BYTES = 16L << 20;

  /**
   * Idle connections are used again within a minute, else closed (servers close them after
   * wait_timeout).
   */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(1);

  /** Statements waiting for a connection, per connection. */
  static final int WAITING_PER_CONNECTION = 16;

  public SchemaSourceConfig {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (maxConnections < 1 || maxConnections > 256) {
      throw new IllegalArgumentException(
          "schema source connections " + maxConnections + " is outside 1..256");
    }
    if (maxAnswerBytes < 1024 || maxAnswerBytes > DEFAULT_MAX_ANSWER_BYTES) {
      throw new IllegalArgumentException(
          "schema source answer limit " + maxAnswerBytes + " is outside 1 KiB .. 16 MiB");
    }
    if (idleTimeout.isNegative()) {
      throw new IllegalArgumentException("idle timeout " + idleTimeout + " is negative");
    }
  }

  /**
   * The defaults for {@code endpoint}: 4 connections, 16 MiB answers, idle connections closed after
   * a minute.
   */
  public static SchemaSourceConfig of(ServerEndpoint endpoint) {
    return new SchemaSourceConfig(
        endpoint, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_ANSWER_BYTES, DEFAULT_IDLE_TIMEOUT);
  }

  /** The bound on each answer: the endpoint's connect timeout. */
  public Duration timeout() {
    return endpoint.connectTimeout();
  }

  /** Statements that may wait for a connection; one more is refused at once. */
  public int maxWaiting() {
    return maxConnections * WAITING_PER_CONNECTION;
  }

  @Override
  public String toString() {
    return endpoint
        + " (at most "
        + maxConnections
        + " connections, "
        + timeout().toMillis()
        + " ms timeout)";
  }
}
