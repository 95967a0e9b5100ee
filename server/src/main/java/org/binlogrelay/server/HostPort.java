package org.binlogrelay.server;

import java.util.Objects;

/**
 * A host and a port as an option gives them, e.g. {@code --primary db1.example:3306}. An IPv6
 * address is written in brackets ({@code [::1]:3306}). Immutable.
 *
 * @param host a host name or an address literal, without brackets
 * @param port 1..65535
 */
public record HostPort(String host, int port) {

  public HostPort {
    Objects.requireNonNull(host, "host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("the host is empty");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is outside 1..65535");
    }
  }

  /**
   * Parses {@code HOST}, {@code HOST:PORT}, {@code [IPV6]} or {@code [IPV6]:PORT}.
   *
   * @param defaultPort the port when the text has none
   * @throws IllegalArgumentException saying what was expected
   */
  public static HostPort parse(String text, int defaultPort) {
    String t = text.strip();
    String host;
    String port = null;
    if (t.startsWith("[")) {
      int close = t.indexOf(']');
      if (close < 0) {
        throw new IllegalArgumentException(
            "'" + text + "' opens '[' without ']'; write an IPv6 address as [::1]:3306");
      }
      host = t.substring(1, close);
      String rest = t.substring(close + 1);
      if (!rest.isEmpty()) {
        if (!rest.startsWith(":")) {
          throw new IllegalArgumentException("'" + text + "': expected ':PORT' after ']'");
        }
        port = rest.substring(1);
      }
    } else {
      int colon = t.indexOf(':');
      if (colon >= 0 && t.indexOf(':', colon + 1) >= 0) {
        throw new IllegalArgumentException(
            "'" + text + "' has several ':'; write an IPv6 address as [::1]:3306");
      }
      host = colon < 0 ? t : t.substring(0, colon);
      port = colon < 0 ? null : t.substring(colon + 1);
    }
    if (host.isEmpty()) {
      throw new IllegalArgumentException("'" + text + "' has no host; expected HOST[:PORT]");
    }
    if (port == null) {
      return new HostPort(host, defaultPort);
    }
    try {
      return new HostPort(host, Integer.parseInt(port));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "'" + text + "': port '" + port + "' is not a number; expected HOST[:PORT]");
    }
  }

  @Override
  public String toString() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }
}
