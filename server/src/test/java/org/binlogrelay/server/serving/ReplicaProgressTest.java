package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;

/**
 * Per-event figures stay on the event loop until published; monitoring threads see whole
 * publications only.
 */
class ReplicaProgressTest {
  private static DumpStatus status(ReplicaProgress p) {
    return p.status("s", DumpStatus.State.SENDING, 1, null, 0, false);
  }

  @Test
  void eventsBecomeVisibleToMonitoringAtPublishAndCountAsSentThen() {
    ReplicaProgress p = new ReplicaProgress(100);
    p.passed("binlog.000001", 4, 120, true, false, false);
    p.passed("binlog.000001", 124, 80, true, false, true);
    p.passed("binlog.000001", 204, 50, false, false, false);

    assertThat(p.sent()).as("not published yet").isNull();
    assertThat(status(p).eventsSent()).isZero();
    assertThat(p.lastSentNanos()).isEqualTo(100);
    Coordinates at = p.coordinates("binlog.000001", 4, "binlog.000001");
    assertThat(at.lastEventStart()).as("the event loop's own view is exact").isEqualTo(204);
    assertThat(at.lastEventEnd()).isEqualTo(254);

    p.publish(500);
    DumpStatus s = status(p);
    assertThat(s.eventsSent()).isEqualTo(2);
    assertThat(s.bytesSent()).isEqualTo(200);
    assertThat(s.transactionsSent()).isEqualTo(1);
    assertThat(s.file()).isEqualTo("binlog.000001");
    assertThat(s.position()).isEqualTo(254);
    assertThat(s.sentPosition()).isEqualTo(204);
    assertThat(p.sent()).isEqualTo(new Position("binlog.000001", 204));
    assertThat(p.lastSentNanos()).isEqualTo(500);

    p.publish(900);
    assertThat(p.lastSentNanos()).as("nothing sent since").isEqualTo(500);
  }

  @Test
  void aRotateMarksTheStreamAndAHeartbeatCounts() {
    ReplicaProgress p = new ReplicaProgress(0);
    p.passed("binlog.000001", 500, 47, true, true, false);
    assertThat(p.afterRotate()).isTrue();
    p.fileChanged();
    assertThat(p.afterRotate()).isFalse();
    p.artificialSent(700, true);
    assertThat(p.lastSentNanos()).isEqualTo(700);
    p.publish(800);
    assertThat(status(p).heartbeatsSent()).isEqualTo(1);
  }

  @Test
  void aMonitoringThreadNeverSeesOneFileWithAnothersOffset() throws Exception {
    ReplicaProgress p = new ReplicaProgress(0);
    int rounds = 200_000;
    CountDownLatch started = new CountDownLatch(1);
    AtomicReference<String> torn = new AtomicReference<>();
    Thread monitor =
        new Thread(
            () -> {
              started.countDown();
              for (int i = 0; i < rounds && torn.get() == null; i++) {
                Position sent = p.sent();
                // binlog.000001 only ever has even offsets, binlog.000002 odd ones
                if (sent != null
                    && (sent.offset() % 2 == 0) != sent.file().equals("binlog.000001")) {
                  torn.set(sent.toString());
                }
              }
            });
    monitor.start();
    started.await();
    for (int i = 0; i < rounds; i++) {
      boolean first = i % 2 == 0;
      p.passed(
          first ? "binlog.000001" : "binlog.000002",
          4,
          first ? 2 * i + 10 : 2 * i + 11,
          true,
          false,
          false);
      p.publish(i);
    }
    monitor.join();
    assertThat(torn.get()).isNull();
  }
}
