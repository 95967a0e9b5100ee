package org.binlogrelay.server.admin;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * How the admin HTTP server listens. Immutable.
 *
 * @param bind the address and port to listen on (port 0: any free port)
 * @param token the bearer token every request but {@code /health} and {@code /ready} must carry,
 *     {@code null} for none (allowed only on a loopback address; {@code RelayOptions} enforces it)
 * @param maxRequestBytes the largest request body accepted (413 beyond it)
 * @param idleTimeout a connection that sends nothing for this long is closed (and a request that
 *     does not arrive whole in this time), but never while its request is being answered
 * @param commandTimeout how long a command (upstream stop and change, rotate) waits before it
 *     answers 503 (409 for rotate); shorter than {@code idleTimeout}, so that a client that waits
 *     as long as the server keeps an idle connection gets the answer
 */
public record AdminConfig(
    InetSocketAddress bind,
    String token,
    int maxRequestBytes,
    Duration idleTimeout,
    Duration commandTimeout) {
  public static final int DEFAULT_PORT = 9307;
  public static final int DEFAULT_MAX_REQUEST_BYTES = 64 * 1024;

  public AdminConfig {
    Objects.requireNonNull(bind, "bind");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    Objects.requireNonNull(commandTimeout, "commandTimeout");
    if (commandTimeout.isNegative()
        || commandTimeout.isZero()
        || commandTimeout.compareTo(idleTimeout) >= 0) {
      throw new IllegalArgumentException(
          "the command timeout ("
              + commandTimeout.toMillis()
              + " ms) must be"
              + " positive and shorter than the idle timeout ("
              + idleTimeout.toMillis()
              + " ms)");
    }
    if (maxRequestBytes < 1) {
      throw new IllegalArgumentException(
          "maxRequestBytes must be positive, got " + maxRequestBytes);
    }
    if (token != null && token.isEmpty()) {
      throw new IllegalArgumentException("the admin token is empty");
    }
  }

  /** Defaults: 64 KiB requests, 30 s idle, 25 s commands. */
  public static AdminConfig of(InetSocketAddress bind, String token) {
    return new AdminConfig(
        bind, token, DEFAULT_MAX_REQUEST_BYTES, Duration.ofSeconds(30), Duration.ofSeconds(25));
  }

  @Override
  public String toString() {
    return "AdminConfig[" + bind + (token == null ? ", no token" : ", token set") + "]";
  }
}
