package org.binlogrelay.server.upstream;

import java.time.Duration;
import java.util.Objects;

/**
 * Where and as whom the relay logs in to a MySQL or MariaDB server as a client: its primary ({@link
 * UpstreamConfig#endpoint()}) or its schema source. Immutable; {@link #toString()} hides the
 * password.
 *
 * @param role what the server is to the relay, for messages: {@code primary}, {@code schema source}
 * @param host the server's host name or address
 * @param port its port
 * @param user the user to log in as
 * @param password its password
 * @param connectTimeout bound on connecting, the handshake, authentication and each read of an
 *     answer
 * @param tls TLS to the server
 */
public record ServerEndpoint(
    String role,
    String host,
    int port,
    String user,
    String password,
    Duration connectTimeout,
    TlsConfig tls) {

  public ServerEndpoint {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(tls, "tls");
    if (host.isEmpty()) {
      throw new IllegalArgumentException("the " + role + "'s host is empty");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          "the " + role + "'s port " + port + " is outside 1..65535");
    }
    if (connectTimeout.toMillis() < 1 || connectTimeout.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "connect timeout " + connectTimeout + " is outside 1 ms .. 24 days");
    }
  }

  /** {@code host:port}. */
  public String address() {
    return host + ":" + port;
  }

  @Override
  public String toString() {
    return role + " " + user + "@" + address() + (tls.mode() != TlsMode.DISABLED ? ", " + tls : "");
  }
}
