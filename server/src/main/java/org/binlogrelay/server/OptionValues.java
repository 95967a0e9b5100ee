package org.binlogrelay.server;

import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.upstream.StartPosition;
import org.binlogrelay.server.upstream.TlsMode;
import org.binlogrelay.storage.SyncPolicy;

/**
 * Parses the text forms the relay's options and configuration file take. Every parser throws an
 * {@link IllegalArgumentException} whose message quotes the text and says which forms are accepted.
 * Stateless.
 */
public final class OptionValues {

  private OptionValues() {}

  /**
   * A duration: a number of seconds as MySQL takes it ({@code 30}, {@code 0.5}), or a number with a
   * unit ({@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}).
   */
  public static Duration duration(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    try {
      if (t.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).strip()));
      }
      long unitSeconds =
          switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
            case 's' -> 1;
            case 'm' -> 60;
            case 'h' -> 3600;
            default -> 0;
          };
      String number = unitSeconds == 0 ? t : t.substring(0, t.length() - 1).strip();
      BigDecimal seconds =
          new BigDecimal(number).multiply(BigDecimal.valueOf(Math.max(1, unitSeconds)));
      if (seconds.signum() < 0) {
        throw new IllegalArgumentException("duration '" + text + "' is negative");
      }
      return Duration.ofNanos(seconds.movePointRight(9).longValueExact());
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          "duration '"
              + text
              + "' not understood; use seconds (30, 0.5) or a"
              + " number with a unit (500ms, 2s, 5m, 1h)");
    }
  }

  /**
   * An object store's endpoint: {@code http://HOST[:PORT]} or {@code https://HOST[:PORT]}, with no
   * path, query or credentials.
   */
  public static URI endpoint(String text) {
    String t = text.strip();
    URI uri;
    try {
      uri = new URI(t);
    } catch (URISyntaxException e) {
      throw badEndpoint(text, e.getReason());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw badEndpoint(text, "it does not start with http:// or https://");
    }
    if (uri.getHost() == null) {
      throw badEndpoint(text, "it names no host");
    }
    if (uri.getUserInfo() != null) {
      throw badEndpoint(
          text, "it holds credentials; they come from the AWS SDK's chain, never an option");
    }
    if (uri.getQuery() != null || uri.getFragment() != null) {
      throw badEndpoint(text, "it has a query or fragment");
    }
    if (uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/")) {
      throw badEndpoint(text, "it has a path; the bucket and prefix go in --archive");
    }
    return URI.create(scheme + "://" + uri.getRawAuthority());
  }

  private static IllegalArgumentException badEndpoint(String text, String why) {
    return new IllegalArgumentException(
        "endpoint '"
            + text
            + "' not understood: "
            + why
            + "; use http(s)://HOST[:PORT] (e.g. http://127.0.0.1:9000)");
  }

  /**
   * A size in bytes: a number, optionally with a binary unit {@code K}, {@code M}, {@code G} or
   * {@code T} (1024-based, as MySQL reads {@code 1G}); an optional trailing {@code B} or {@code iB}
   * is accepted.
   */
  public static long byteSize(String text) {
    String t = text.strip().toUpperCase(Locale.ROOT);
    if (t.endsWith("IB")) {
      t = t.substring(0, t.length() - 2);
    } else if (t.endsWith("B")) {
      t = t.substring(0, t.length() - 1);
    }
    int shift = 0;
    if (!t.isEmpty()) {
      shift =
          switch (t.charAt(t.length() - 1)) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            case 'T' -> 40;
            default -> 0;
          };
    }
    String number = shift == 0 ? t : t.substring(0, t.length() - 1).strip();
    try {
      long value = Long.parseLong(number);
      if (value < 0 || value > (Long.MAX_VALUE >> shift)) {
        throw new NumberFormatException();
      }
      return value << shift;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "size '"
              + text
              + "' not understood; use bytes or a number with K, M, G"
              + " or T (e.g. 500M, 20G)");
    }
  }

  /**
   * When to force stored binlogs to disk, in the terms of MySQL's {@code sync_binlog}: {@code 1} or
   * {@code every-transaction}; {@code N} (every N transactions); {@code 0} or {@code off}; or a
   * time with a unit ({@code 250ms}, {@code 2s}: at most once per interval). The store's own forms
   * ({@code every-100-transactions}, {@code every-250ms}) are accepted too.
   */
  public static SyncPolicy syncPolicy(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    try {
      if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
        int n = Integer.parseInt(t);
        return n == 0 ? SyncPolicy.off() : SyncPolicy.everyTransactions(n);
      }
      if (!t.isEmpty() && Character.isDigit(t.charAt(0))) {
        Duration interval = duration(t);
        if (interval.isZero()) {
          throw new IllegalArgumentException("zero interval");
        }
        return SyncPolicy.every(interval);
      }
      return SyncPolicy.parse(t);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "sync policy '"
              + text
              + "' not understood; use every-transaction (or 1),"
              + " a number of transactions N, an interval such as 250ms or 2s, or off (or 0)");
    }
  }

  /**
   * Where an empty store starts: {@code earliest}, {@code current}, {@code gtid:SET} (a MySQL GTID
   * set or a MariaDB GTID position) or {@code file:NAME} (from offset 4 of that file).
   */
  public static StartPosition startPosition(String text) {
    String t = text.strip();
    String lower = t.toLowerCase(Locale.ROOT);
    if (lower.equals("earliest")) {
      return StartPosition.earliest();
    }
    if (lower.equals("current")) {
      return StartPosition.current();
    }
    if (lower.startsWith("gtid:")) {
      return StartPosition.gtids(t.substring(5).strip());
    }
    if (lower.startsWith("file:")) {
      String name = t.substring(5).strip();
      int colon = name.indexOf(':');
      long offset = 4;
      if (colon >= 0) {
        try {
          offset = Long.parseLong(name.substring(colon + 1));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "start '" + text + "': '" + name.substring(colon + 1) + "' is not an offset");
        }
        name = name.substring(0, colon);
      }
      return StartPosition.file(name, offset);
    }
    throw new IllegalArgumentException(
        "start '" + text + "' not understood; use earliest, current, gtid:SET or" + " file:NAME");
  }

  /**
   * A {@link TlsMode} as the mysql client's {@code --ssl-mode} spells it, in any case ({@code
   * verify_ca}).
   */
  public static TlsMode tlsMode(String text) {
    try {
      return TlsMode.valueOf(text.strip().toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "TLS mode '"
              + text
              + "' not understood; use disabled, preferred, required,"
              + " verify_ca or verify_identity");
    }
  }

  /** {@code mysql} or {@code mariadb}, in any case. */
  public static GtidFlavor flavor(String text) {
    return switch (text.strip().toLowerCase(Locale.ROOT)) {
      case "mysql" -> GtidFlavor.MYSQL;
      case "mariadb" -> GtidFlavor.MARIADB;
      default ->
          throw new IllegalArgumentException(
              "flavor '" + text + "' not understood; use mysql or mariadb");
    };
  }
}
