package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection to the primary broken under write load by a proxy ({@link FaultyProxy}): dropped
 * (reset), stalled briefly (below the dead-connection bound: the same connection goes on), stalled
 * long (declared dead, replaced), half-open (the primary's side gone without a word to the relay).
 * The relay reconnects by itself each time, and ends byte-identical to the primary. Primaries:
 * MySQL 9.7 and each MariaDB series of the matrix.
 */
@ExtendWith(ServerFarmExtension.class)
class ConnectionFaultsIT {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionFaultsIT.class);
  private static final int ROUNDS = 3;

  @Test
  void mysqlRelayRidesOutDropsStallsAndHalfOpenConnections(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    ridesOutFaults(
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(1L << 20)),
        dir);
  }

  @MariadbSeriesTest
  void mariadbRelayRidesOutDropsStallsAndHalfOpenConnections(
      ServerVersion version, ServerFarm farm, @TempDir Path dir) throws Exception {
    ridesOutFaults(
        farm.start(ServerSpec.of(version).named("primary").withMaxBinlogSize(1L << 20)), dir);
  }

  private static void ridesOutFaults(DatabaseServer primary, Path dir) throws Exception {
    Sysbench sysbench = UpstreamScenarios.load(primary).withRate(200);
    sysbench.prepare();
    ExecutorService background = Executors.newSingleThreadExecutor();
    List<String> errors = new ArrayList<>();
    try (FaultyProxy proxy = new FaultyProxy(primary.address());
        UpstreamUnderTest relay =
            UpstreamUnderTest.follow(primary, proxy.address(), dir, b -> {})) {
      Future<SysbenchResult> load = background.submit(() -> sysbench.run(Duration.ofSeconds(40)));
      relay.awaitStatus(UpstreamStatus.STREAMING, UpstreamScenarios.CONNECT);
      for (int round = 1; round <= ROUNDS; round++) {
        errors.add(reconnectsAfter("drop", relay, proxy::drop));
        long before = relay.state().connections();
        long events = relay.state().eventsReceived();
        proxy.stall(Duration.ofMillis(300));
        relay.awaitState(
            s -> s.eventsReceived() > events,
            "events after a short stall",
            UpstreamScenarios.CONNECT);
        assertThat(relay.state().connections())
            .as("a 300 ms stall keeps the connection")
            .isEqualTo(before);
        errors.add(
            reconnectsAfter(
                "long stall",
                relay,
                () -> {
                  try {
                    proxy.stall(Duration.ofMillis(2_500));
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }));
        errors.add(reconnectsAfter("half-open", relay, proxy::halfOpen));
      }
      assertThat(load.get(2, TimeUnit.MINUTES).transactions()).isPositive();
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      relay.assertIdenticalToPrimary();
      relay.assertSameHistoryAsPrimary(SourceSwitchScenarios.transactionsOf(primary));
      LOG.info(
          "after {} rounds of faults ({} connections), identical to {}; errors seen: {}",
          ROUNDS,
          relay.state().connections(),
          primary,
          errors);
    } finally {
      background.shutdownNow();
    }
  }

  /**
   * Applies {@code fault} and waits for the relay to stream on a new connection; returns the error
   * it saw.
   */
  private static String reconnectsAfter(String what, UpstreamUnderTest relay, Runnable fault)
      throws Exception {
    long before = relay.state().connections();
    long started = System.nanoTime();
    fault.run();
    UpstreamState back =
        relay.awaitState(
            s -> s.connections() > before && s.status() == UpstreamStatus.STREAMING,
            "streaming again after " + what,
            UpstreamScenarios.CONNECT);
    double seconds = (System.nanoTime() - started) / 1e9;
    LOG.info(
        "FAULT {}: streaming again after {} s: {}",
        what,
        String.format("%.2f", seconds),
        back.lastError());
    UpstreamScenarios.awaitMoreEvents(relay, 100, "events on the new connection");
    return what + " -> " + back.lastError();
  }
}
