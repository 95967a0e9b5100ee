package org.binlogrelay.server.downstream;

import org.binlogrelay.storage.Time;
import org.slf4j.Logger;

/**
 * Logs refused connections of one kind without flooding the log: the first refusal is logged at
 * once, later ones at most once per {@link #INTERVAL_NANOS} (on the monotonic clock of the {@link
 * Time} passed in) with the number refused since the last line. A burst of thousands of refused
 * connections makes a handful of lines.
 *
 * <p>Thread-safe: {@link #refused} synchronises on this object.
 */
final class RefusalLog {
  static final long INTERVAL_NANOS = 10_000_000_000L;

  private final Logger log;
  private final Time time;
  private long lastLoggedAt;
  private boolean loggedOnce;
  private long suppressed;

  RefusalLog(Logger log, Time time) {
    this.log = log;
    this.time = time;
  }

  /**
   * A connection was refused; {@code message} (an SLF4J pattern) says why, with {@code arguments}.
   */
  void refused(String message, Object... arguments) {
    long now = time.nanoseconds();
    long more;
    synchronized (this) {
      if (loggedOnce && now - lastLoggedAt < INTERVAL_NANOS) {
        suppressed++;
        return;
      }
      loggedOnce = true;
      lastLoggedAt = now;
      more = suppressed;
      suppressed = 0;
    }
    if (more == 0) {
      log.warn(message, arguments);
    } else {
      log.warn(
          message + " ({} more refused for this reason since the last such line)",
          append(arguments, more));
    }
  }

  private static Object[] append(Object[] arguments, Object... more) {
    Object[] all = new Object[arguments.length + more.length];
    System.arraycopy(arguments, 0, all, 0, arguments.length);
    System.arraycopy(more, 0, all, arguments.length, more.length);
    return all;
  }
}
