package org.binlogrelay.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.Test;

/** What the relay-added latency histogram observes for each stretch a dump hands over. */
class RelayLatencyTest {
  private static Position p(long offset) {
    return new Position("binlog.000001", offset);
  }

  private final AtomicLong now = new AtomicLong();
  private final Time time =
      new Time() {
        @Override
        public long nanoseconds() {
          return now.get();
        }

        @Override
        public long milliseconds() {
          return now.get() / 1_000_000;
        }
      };
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final BoundaryLog boundaries = new BoundaryLog(time, 8);
  private final RelayLatency latency = new RelayLatency(boundaries, time, registry);

  private Timer timer() {
    return registry.get("binlogrelay.relay.latency").timer();
  }

  /**
   * A group of transactions handed over in one flush (e.g. all made durable by one force) counts
   * with the one that waited longest: the newest of the group had waited least and hid the others.
   */
  @Test
  void aStretchCountsWithItsOldestTransaction() {
    boundaries.record(p(100), 1_000_000, 1);
    boundaries.record(p(200), 5_000_000, 1);
    boundaries.record(p(300), 9_000_000, 1);
    boundaries.record(p(400), 9_500_000, 1);
    now.set(10_000_000);
    latency.sent(p(100), p(300));
    assertThat(timer().count()).isEqualTo(1);
    assertThat(timer().max(TimeUnit.NANOSECONDS))
        .as("the transaction ending at 200, received at 5 ms, handed over at 10 ms")
        .isEqualTo(5_000_000);
    latency.sent(p(300), p(400));
    assertThat(timer().count()).isEqualTo(2);
    assertThat(timer().totalTime(TimeUnit.NANOSECONDS)).isEqualTo(5_000_000 + 500_000);
  }

  @Test
  void aFirstStretchAndAStretchWithoutACompleteTransactionAreNotObserved() {
    boundaries.record(p(100), 1_000_000, 1);
    boundaries.record(p(200), 2_000_000, 1);
    now.set(3_000_000);
    latency.sent(null, p(200));
    latency.sent(p(200), p(250));
    latency.sent(p(120), p(150));
    assertThat(timer().count()).isZero();
  }

  @Test
  void aStretchFromBeforeTheRingCountsWithItsNewestTransaction() {
    for (int i = 1; i <= 10; i++) {
      boundaries.record(p(i * 100L), i * 1_000_000L, 1);
    }
    now.set(20_000_000);
    assertThat(boundaries.firstAfter(p(150))).as("the ring holds 300..1000").isNull();
    latency.sent(p(150), p(850));
    assertThat(timer().max(TimeUnit.NANOSECONDS)).isEqualTo(20_000_000 - 8_000_000);
  }
}
