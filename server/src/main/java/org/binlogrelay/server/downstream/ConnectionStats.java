package org.binlogrelay.server.downstream;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.binlogrelay.server.downstream.sql.ServerCounters;
import org.binlogrelay.storage.Time;

/**
 * The downstream server's counters for {@code SHOW GLOBAL STATUS}: connection attempts, the most
 * open at once, aborted connects (refused before the greeting or at login), bytes on the wire in
 * both directions (counted by each connection's {@link TrafficCounter}), and TLS handshakes started
 * and finished. Thread-safe (atomics and adders).
 */
final class ConnectionStats implements ServerCounters {
  private final long startedAtMillis;
  private final boolean tls;
  final AtomicLong connections = new AtomicLong();
  final AtomicLong maxUsed = new AtomicLong();
  final AtomicLong aborted = new AtomicLong();
  final LongAdder sent = new LongAdder();
  final LongAdder received = new LongAdder();
  final AtomicLong tlsAccepts = new AtomicLong();
  final AtomicLong tlsFinished = new AtomicLong();

  ConnectionStats(Time time, boolean tls) {
    this.startedAtMillis = time.milliseconds();
    this.tls = tls;
  }

  /** A connection was accepted and {@code open} are open now. */
  void opened(int open) {
    connections.incrementAndGet();
    maxUsed.accumulateAndGet(open, Math::max);
  }

  @Override
  public long startedAtMillis() {
    return startedAtMillis;
  }

  @Override
  public long connections() {
    return connections.get();
  }

  @Override
  public long maxUsedConnections() {
    return maxUsed.get();
  }

  @Override
  public long bytesSent() {
    return sent.sum();
  }

  @Override
  public long bytesReceived() {
    return received.sum();
  }

  @Override
  public long abortedConnects() {
    return aborted.get();
  }

  @Override
  public long tlsAccepts() {
    return tlsAccepts.get();
  }

  @Override
  public long tlsFinishedAccepts() {
    return tlsFinished.get();
  }

  @Override
  public boolean tlsConfigured() {
    return tls;
  }
}
