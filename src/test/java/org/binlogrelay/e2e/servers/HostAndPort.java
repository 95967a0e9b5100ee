package org.binlogrelay.e2e.servers;

import java.util.Objects;

/** A TCP address, as one party sees another. */
public record HostAndPort(String host, int port) {

  public HostAndPort {
    Objects.requireNonNull(host, "host");
    if (port <= 0 || port > 65_535) {
      throw new IllegalArgumentException("Invalid port " + port + " for host " + host);
    }
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
