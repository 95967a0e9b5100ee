package org.binlogrelay.server.downstream;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.binlogrelay.server.downstream.sql.SqlFlavor;

/**
 * The server version the relay announces (greeting, {@code VERSION()}, {@code @@version}): clients
 * parse its leading {@code major.minor.patch} to decide what they may send (executable comments
 * {@code /*!NNNNN}, the RSA padding of caching_sha2_password, MySQL 8.4 vs older replication
 * statements), and MariaDB clients look for "MariaDB" in it. So by default the relay announces its
 * upstream's version number, followed by the flavour and its own name:
 *
 * <pre>
 *   upstream (greeting or stored FORMAT_DESCRIPTION)   announced
 *   9.7.4                                             9.7.4-binlog-relay
 *   8.0.36-28  (Percona)                              8.0.36-binlog-relay
 *   5.5.5-10.11.6-MariaDB-0+deb12u1-log               10.11.6-MariaDB-binlog-relay  (the 5.5.5- prefix is dropped)
 *   10.11.6-MariaDB-log                               10.11.6-MariaDB-binlog-relay
 *   (none, or no version number)                      8.4.0-binlog-relay / 10.11.0-MariaDB-binlog-relay
 * </pre>
 *
 * A configured version wins over all of this. The handshake greeting of a MariaDB 10.x relay puts
 * "5.5.5-" before the announced version, as MariaDB 10.x does ({@link #inGreeting}); MariaDB 11.0
 * and later, and MySQL, do not. Stateless.
 */
public final class AnnouncedVersion {
  /** What follows the version number (and "-MariaDB") in what the relay announces. */
  public static final String SUFFIX = "binlog-relay";

  private static final Pattern NUMBER =
      Pattern.compile(
          "^(?:5\\.5\\.5-(?=\\d+\\.\\d+\\.\\d+.*MariaDB))?" + "(\\d{1,3}\\.\\d{1,3}\\.\\d{1,3})");

  private AnnouncedVersion() {}

  /**
   * The version to announce.
   *
   * @param configured what the operator configured, or null
   * @param upstream the upstream's server version (its greeting, or the FORMAT_DESCRIPTION of a
   *     stored binlog), or null if not known
   * @param dialect the flavour the relay acts as
   */
  public static String choose(String configured, String upstream, SqlFlavor dialect) {
    if (configured != null && !configured.isBlank()) {
      return configured;
    }
    return derivedFrom(upstream, dialect).orElseGet(() -> fallback(dialect));
  }

  /**
   * The upstream's version number with the flavour and {@link #SUFFIX}; empty if it has no version
   * number.
   */
  public static Optional<String> derivedFrom(String upstream, SqlFlavor dialect) {
    if (upstream == null) {
      return Optional.empty();
    }
    Matcher m = NUMBER.matcher(upstream.strip());
    if (!m.find()) {
      return Optional.empty();
    }
    return Optional.of(m.group(1) + dialect.versionTag() + "-" + SUFFIX);
  }

  /** What the relay announces when nothing is known of its upstream. */
  public static String fallback(SqlFlavor dialect) {
    return dialect.defaultVersionNumber() + dialect.versionTag() + "-" + SUFFIX;
  }

  /**
   * What the handshake greeting carries for the announced {@code version}: the same, except that a
   * MariaDB 10.x version gets MariaDB's "5.5.5-" prefix, as a real 10.x server's greeting has it
   * ({@link SqlFlavor#greetingVersion}). {@code VERSION()} and {@code @@version} announce {@code
   * version} without it.
   */
  public static String inGreeting(String version, SqlFlavor dialect) {
    return dialect.greetingVersion(version);
  }
}
