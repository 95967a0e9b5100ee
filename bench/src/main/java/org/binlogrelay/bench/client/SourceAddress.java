package org.binlogrelay.bench.client;

import java.util.Objects;

/**
 * Where a source listens and whom to log in as. Immutable.
 *
 * @param host host name or address
 * @param port TCP port
 * @param user the account (needs REPLICATION SLAVE for dumps, REPLICATION CLIENT for the status
 *     statements)
 * @param password its password; empty for none
 */
public record SourceAddress(String host, int port, String user, String password) {
  public SourceAddress {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is outside 1..65535");
    }
  }

  /** {@code host:port}, for messages. */
  @Override
  public String toString() {
    return host + ":" + port;
  }
}
