package org.binlogrelay.testcontainers;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The relay's {@code --source} URL for a primary: {@code mysql://USER@HOST:PORT}, the user
 * percent-encoded (docs/running.md, "Options") and an IPv6 host in brackets. The password is not
 * part of it: it goes in a file. Stateless and thread-safe.
 */
final class SourceArgument {
  private SourceArgument() {}

  static String of(String user, String host, int port) {
    String bracketed = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    return "mysql://" + percentEncode(user) + "@" + bracketed + ":" + port;
  }

  /** Percent-encodes all but RFC 3986's unreserved characters. */
  private static String percentEncode(String text) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "-._~".indexOf(c) >= 0) {
        out.append(c);
      } else {
        out.append('%').append(String.format(Locale.ROOT, "%02X", b & 0xff));
      }
    }
    return out.toString();
  }
}
