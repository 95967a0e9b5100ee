package org.binlogrelay.server.downstream;

import java.util.LinkedHashMap;
import java.util.Map;
import org.binlogrelay.storage.Time;

/**
 * Per-host limit on the rate of new connections, as a token bucket per client address: a host may
 * open {@code perSecond} connections a second on average and up to {@link #burst()} ({@value
 * #BURST_SECONDS} seconds' worth) at once. A connection over the limit is refused before the
 * greeting, so a client that reconnects in a tight loop (a crash-looping tool, a misconfigured
 * replica) cannot take the relay's event loops and login threads from the replicas it serves. MySQL
 * has no such limit; it is off unless configured.
 *
 * <p>At most {@code maxHosts} hosts are tracked; when full, the least recently seen host is
 * forgotten (it starts again with a full bucket), so a flood of addresses costs bounded memory.
 * Time is the monotonic clock of the {@link Time} passed in.
 *
 * <p>Thread-safe: {@link #admit} synchronises on this object (it runs once per accepted
 * connection).
 */
final class HostConnectRate {
  /** How many seconds of the rate a host may use at once. */
  static final int BURST_SECONDS = 10;

  private final double perSecond;
  private final double burst;
  private final Time time;
  private final int maxHosts;
  private final Map<String, Bucket> hosts = new LinkedHashMap<>(16, 0.75f, true);

  private static final class Bucket {
    double tokens;
    long refilledAt;
  }

  /**
   * @param perSecond connections a second one host may open on average; at least 1
   * @param time the clock ({@link Time#nanoseconds()})
   * @param maxHosts how many hosts to remember
   */
  HostConnectRate(int perSecond, Time time, int maxHosts) {
    if (perSecond < 1 || maxHosts < 1) {
      throw new IllegalArgumentException(
          "perSecond and maxHosts must be positive: " + perSecond + ", " + maxHosts);
    }
    this.perSecond = perSecond;
    this.burst = (double) perSecond * BURST_SECONDS;
    this.time = time;
    this.maxHosts = maxHosts;
  }

  /** Connections one host may open at once. */
  long burst() {
    return (long) burst;
  }

  /** Takes one connection from {@code host}'s allowance; false when it has none left. */
  synchronized boolean admit(String host) {
    long now = time.nanoseconds();
    Bucket b = hosts.get(host);
    if (b == null) {
      if (hosts.size() >= maxHosts) {
        hosts.remove(hosts.keySet().iterator().next());
      }
      b = new Bucket();
      b.tokens = burst;
      b.refilledAt = now;
      hosts.put(host, b);
    } else {
      b.tokens = Math.min(burst, b.tokens + (now - b.refilledAt) / 1e9 * perSecond);
      b.refilledAt = now;
    }
    if (b.tokens < 1) {
      return false;
    }
    b.tokens -= 1;
    return true;
  }
}
