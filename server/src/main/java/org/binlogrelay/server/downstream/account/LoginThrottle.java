package org.binlogrelay.server.downstream.account;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.binlogrelay.storage.Time;

/**
 * Per-host rate limiting of failed logins. A host that fails {@code maxFailures} times within
 * {@code window} is blocked for {@code blockFor} after its last failure; a successful login clears
 * its record (as MySQL resets {@code max_connect_errors} counting on success). Unlike MySQL's
 * block, which lasts until {@code FLUSH HOSTS}, this one ends by itself.
 *
 * <p>Time is the wall clock of the {@link Time} passed in (STYLE.md section 8). At most {@code
 * maxHosts} hosts are tracked; when full, the least recently failed host is forgotten, so a flood
 * of addresses costs bounded memory.
 *
 * <p>Thread-safe: every method synchronizes on the throttle (logins are rare next to packets).
 */
public final class LoginThrottle {
  private static final class HostFailures {
    int failures;
    Instant firstFailure;
    Instant lastFailure;
  }

  private final Time time;
  private final int maxFailures;
  private final Duration window;
  private final Duration blockFor;
  private final int maxHosts;
  private final Map<String, HostFailures> hosts;

  public LoginThrottle(
      Time time, int maxFailures, Duration window, Duration blockFor, int maxHosts) {
    if (maxFailures < 1 || window.isNegative() || blockFor.isNegative() || maxHosts < 1) {
      throw new IllegalArgumentException(
          "login throttle: maxFailures and maxHosts must be positive, durations not" + " negative");
    }
    this.time = time;
    this.maxFailures = maxFailures;
    this.window = window;
    this.blockFor = blockFor;
    this.maxHosts = maxHosts;
    this.hosts = new LinkedHashMap<>(16, 0.75f, true);
  }

  /** How long {@code host} stays blocked from now, or {@link Duration#ZERO} if it may log in. */
  public synchronized Duration blockedFor(String host) {
    HostFailures r = hosts.get(host);
    if (r == null || r.failures < maxFailures) {
      return Duration.ZERO;
    }
    Duration left = Duration.between(now(), r.lastFailure.plus(blockFor));
    if (left.isNegative() || left.isZero()) {
      hosts.remove(host);
      return Duration.ZERO;
    }
    return left;
  }

  public synchronized void recordFailure(String host) {
    Instant now = now();
    HostFailures r = hosts.get(host);
    if (r == null || now.isAfter(r.firstFailure.plus(window)) && r.failures < maxFailures) {
      if (r == null && hosts.size() >= maxHosts) {
        hosts.remove(hosts.keySet().iterator().next());
      }
      r = new HostFailures();
      r.firstFailure = now;
      hosts.put(host, r);
    }
    r.failures++;
    r.lastFailure = now;
  }

  public synchronized void recordSuccess(String host) {
    hosts.remove(host);
  }

  private Instant now() {
    return Instant.ofEpochMilli(time.milliseconds());
  }

  public int maxFailures() {
    return maxFailures;
  }

  public Duration blockDuration() {
    return blockFor;
  }
}
