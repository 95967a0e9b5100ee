package org.binlogrelay.server;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which flavour, MySQL or MariaDB, the relay's store and downstream server take, and how it was
 * learnt. The store needs it to open, so it is settled first, in this order:
 *
 * <ol>
 *   <li>{@link RelayConfig#flavor()} if given ({@code --flavor});
 *   <li>the server version in the stored binlog files ({@link StoredServerVersion}), so a relay
 *       restarts without its primary;
 *   <li>the primary's greeting ({@link PrimaryGreeting}), read without logging in, retried every
 *       second until {@link RelayConfig#detectionTimeout()}.
 * </ol>
 *
 * A server version containing "MariaDB" means MariaDB, anything else MySQL (as the upstream
 * connection decides). Immutable.
 *
 * @param flavor the flavour
 * @param source how it was learnt, for the log: "--flavor", "stored binlog.000003
 *     (10.11.6-MariaDB-log)", ...
 * @param serverVersion the primary's server version if it was read, else {@code null}
 */
public record FlavorDetection(GtidFlavor flavor, String source, String serverVersion) {
  private static final Logger LOG = LoggerFactory.getLogger(FlavorDetection.class);
  private static final Duration RETRY_DELAY = Duration.ofSeconds(1);

  /** The flavour a server version string names. */
  static GtidFlavor flavorOf(String serverVersion) {
    return serverVersion.contains("MariaDB") ? GtidFlavor.MARIADB : GtidFlavor.MYSQL;
  }

  /**
   * Settles the flavour for {@code config}.
   *
   * @param time measures the detection timeout
   * @param stop counted down when the relay is closed while detecting; ends the waits at once
   * @throws RelayStartException if no source can tell (no {@code --flavor}, nothing stored, no
   *     primary), the primary did not answer in time, or {@code stop} was counted down
   */
  static FlavorDetection detect(RelayConfig config, Time time, CountDownLatch stop)
      throws RelayStartException {
    if (config.flavor() != null) {
      return new FlavorDetection(config.flavor(), "--flavor", null);
    }
    Optional<String> stored;
    try {
      stored = StoredServerVersion.of(config.dataDir());
    } catch (IOException e) {
      throw new RelayStartException(
          "cannot read the binlog files in "
              + config.dataDir()
              + " to learn their flavour:"
              + " "
              + e.getMessage()
              + "; check the directory's permissions, or pass --flavor=mysql|mariadb",
          e);
    }
    if (stored.isPresent()) {
      return new FlavorDetection(
          flavorOf(stored.get()),
          "the stored binlog files (server version '" + stored.get() + "')",
          stored.get());
    }
    UpstreamConfig upstream = config.upstream();
    if (upstream == null) {
      throw new RelayStartException(
          "cannot tell whether to act as MySQL or MariaDB: "
              + config.dataDir()
              + " holds no binlog file and no primary is configured; pass --primary HOST:PORT to follow a primary, or"
              + " --flavor=mysql|mariadb");
    }
    return fromGreeting(
        new HostPort(upstream.host(), upstream.port()),
        upstream.connectTimeout(),
        config.detectionTimeout(),
        time,
        stop);
  }

  private static FlavorDetection fromGreeting(
      HostPort primary, Duration connectTimeout, Duration timeout, Time time, CountDownLatch stop)
      throws RelayStartException {
    long deadline = time.nanoseconds() + timeout.toNanos();
    int attempt = 0;
    while (true) {
      attempt++;
      try {
        String version = PrimaryGreeting.serverVersion(primary, connectTimeout);
        return new FlavorDetection(
            flavorOf(version),
            "the greeting of primary " + primary + " (server version '" + version + "')",
            version);
      } catch (IOException e) {
        long left = deadline - time.nanoseconds();
        if (left <= 0) {
          throw new RelayStartException(
              e.getMessage()
                  + ". The store is empty, so the relay must learn the"
                  + " primary's flavour before it starts; gave up after "
                  + attempt
                  + " attempts in "
                  + timeout.toSeconds()
                  + " s. Check --primary, or pass --flavor=mysql|mariadb to start without reaching the primary",
              e);
        }
        LOG.warn(
            "{}; retrying in {} s to learn the primary's flavour (attempt {})",
            e.getMessage(),
            RETRY_DELAY.toSeconds(),
            attempt);
        try {
          if (stop.await(Math.min(left, RETRY_DELAY.toNanos()), TimeUnit.NANOSECONDS)) {
            throw new RelayStartException("stopped while waiting for primary " + primary);
          }
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new RelayStartException("interrupted while waiting for primary " + primary, ie);
        }
      }
    }
  }
}
