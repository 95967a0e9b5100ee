package org.binlogrelay.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upstream counters across replicators replaced as the relay does it ({@link
 * UpstreamSuccession#replace}): real replicators on a real store, following a loopback port nobody
 * listens on, so that each counts failures.
 */
@Timeout(60)
class UpstreamMetersTest {
  @TempDir Path dir;

  /**
   * Micrometer's function counters hold their object weakly: kept in a field (as RelayMetrics keeps
   * its own) so that a GC during the test does not freeze every counter at its last reading.
   */
  private UpstreamMeters meters;

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static double errors(SimpleMeterRegistry registry) {
    return registry.find("binlogrelay.upstream.errors").functionCounters().stream()
        .mapToDouble(FunctionCounter::count)
        .sum();
  }

  private static long failures(UpstreamReplicator r) {
    return r.ingestStats().failures().values().stream().mapToLong(Long::longValue).sum();
  }

  private static void awaitFailure(UpstreamReplicator r) throws InterruptedException {
    eventually(Duration.ofSeconds(20), "a refused connection counted", () -> failures(r) > 0);
    assertThat(failures(r)).as("the replicator counted its refused connection").isPositive();
  }

  @Test
  void countersNeverDecreaseAndKeepAReplicatorNoScrapeSaw() throws Exception {
    try (BinlogStore store = BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MYSQL).build())) {
      UpstreamSuccession upstreams = new UpstreamSuccession();
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      meters = new UpstreamMeters(upstreams, Time.SYSTEM);
      meters.bind(registry);
      UpstreamConfig config =
          UpstreamConfig.builder("127.0.0.1", closedPort(), "repl", "pw")
              .serverId(9001)
              .connectTimeout(Duration.ofSeconds(2))
              .build();
      assertThat(errors(registry)).isZero();
      List<UpstreamReplicator> all = new ArrayList<>();
      double last = 0;
      for (int i = 0; i < 3; i++) {
        UpstreamReplicator r = new UpstreamReplicator(config, store, Time.SYSTEM);
        all.add(r);
        upstreams.replace(r);
        r.start();
        awaitFailure(r);
        assertThat(r.stop(Duration.ofSeconds(10))).isTrue();
        if (i == 1) {
          continue; // lives and dies between two scrapes
        }
        double now = errors(registry);
        assertThat(now).as("after replicator %d", i).isGreaterThanOrEqualTo(last);
        last = now;
      }
      UpstreamReplicator idle = new UpstreamReplicator(config, store, Time.SYSTEM);
      upstreams.replace(idle);
      double total = all.stream().mapToLong(UpstreamMetersTest::failures).sum();
      assertThat(errors(registry))
          .as("every replicator's failures, the unscraped one's included")
          .isEqualTo(total)
          .isGreaterThanOrEqualTo(last);
      assertThat(registry.find("binlogrelay.upstream.received").functionCounter().count()).isZero();
    }
  }
}
