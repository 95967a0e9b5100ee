package org.binlogrelay.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.server.serving.DumpObserver;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;

/**
 * Relay-added latency: for each stretch of stored events a dump hands to its replica's socket, the
 * time from the upstream receiving the oldest transaction completed in it (its boundary in the
 * {@link BoundaryLog}) to now: the transaction of the stretch that waited longest, so that a group
 * of transactions held by one force or one stall counts with its worst, not its best. One
 * observation per dump and per flush that completed a transaction (if the ring no longer holds the
 * stretch's start, the newest transaction completed in it, as before). A dump's first stretch is
 * not observed (a replica that connects and starts from old files is behind, the relay added
 * nothing), nor stretches older than the ring; time a feed was paused, or blocked by a replica that
 * reads slowly, is included. Thread-safe (Micrometer's timer).
 */
public final class RelayLatency implements DumpObserver {
  static final String NAME = "binlogrelay.relay.latency";

  private final BoundaryLog boundaries;
  private final Time time;
  private final Timer timer;

  public RelayLatency(BoundaryLog boundaries, Time time, MeterRegistry registry) {
    this.boundaries = boundaries;
    this.time = time;
    this.timer =
        Timer.builder(NAME)
            .description(
                "Time from the upstream receiving a transaction's last event to handing it to a replica's"
                    + " socket")
            .serviceLevelObjectives(
                millis(0.1),
                millis(0.25),
                millis(0.5),
                millis(1),
                millis(2.5),
                millis(5),
                millis(10),
                millis(25),
                millis(50),
                millis(100),
                millis(250),
                millis(500),
                millis(1000),
                millis(2500),
                millis(5000),
                millis(10000))
            .register(registry);
  }

  private static Duration millis(double ms) {
    return Duration.ofNanos((long) (ms * 1_000_000));
  }

  @Override
  public void sent(Position from, Position to) {
    if (from == null) {
      return;
    }
    BoundaryLog.Entry boundary = boundaries.firstAfter(from);
    if (boundary == null) {
      boundary = boundaries.atOrBefore(to);
    }
    if (boundary == null || !boundary.end().isAfter(from) || boundary.end().isAfter(to)) {
      return;
    }
    long elapsed = time.nanoseconds() - boundary.writtenNanos();
    timer.record(Math.max(0, elapsed), TimeUnit.NANOSECONDS);
  }
}
