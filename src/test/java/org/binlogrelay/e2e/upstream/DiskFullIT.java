package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.campaign.TmpfsDisk;
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
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreCondition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's disk fills up under write load and is freed again, twice: the relay stops reading
 * from the primary (no unbounded buffering, nothing half-stored), waits in WAITING_FOR_STORE,
 * resumes by itself once space is back, and ends byte-identical to the primary with its exact GTID
 * history. The data directory is a real tmpfs, shrunk to just above what it holds to fill it and
 * grown again to free it (root needed, as in CI; a failed mount fails). Primaries: MySQL 9.7 and
 * each MariaDB series of the matrix ({@link MariadbSeriesTest}).
 */
@ExtendWith(ServerFarmExtension.class)
class DiskFullIT {
  private static final Logger LOG = LoggerFactory.getLogger(DiskFullIT.class);
  private static final long ROOM = 64L << 20;

  /** Free space left when the disk is "filled": less than a few seconds of this load's binlog. */
  private static final long HEADROOM = 192L << 10;

  @Test
  void mysqlRelayWaitsOutAFullDiskAndResumesExactly(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    waitsOutAFullDisk(
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(1L << 20)),
        dir);
  }

  @MariadbSeriesTest
  void mariadbRelayWaitsOutAFullDiskAndResumesExactly(
      ServerVersion version, ServerFarm farm, @TempDir Path dir) throws Exception {
    waitsOutAFullDisk(
        farm.start(ServerSpec.of(version).named("primary").withMaxBinlogSize(1L << 20)), dir);
  }

  private static void waitsOutAFullDisk(DatabaseServer primary, Path dir) throws Exception {
    Sysbench sysbench = UpstreamScenarios.load(primary).withRate(200);
    sysbench.prepare();
    Path mount = dir.resolve("fs");
    ExecutorService background = Executors.newSingleThreadExecutor();
    try (TmpfsDisk disk = TmpfsDisk.mount(mount, ROOM);
        UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, mount.resolve("store"))) {
      Future<SysbenchResult> load = background.submit(() -> sysbench.run(Duration.ofSeconds(30)));
      relay.awaitStatus(UpstreamStatus.STREAMING, UpstreamScenarios.CONNECT);
      for (int round = 1; round <= 2; round++) {
        // At the load's pace before the disk fills: any backlog (the prepared tables, what came
        // while the disk was full) stored, then some more of the load; else HEADROOM would go at
        // once.
        awaitBacklogStored(relay);
        UpstreamScenarios.awaitMoreEvents(relay, 300, "events under load before the disk fills");
        long events = relay.state().eventsReceived();
        disk.fill(HEADROOM);
        UpstreamState waiting =
            relay.awaitState(
                s -> s.status() == UpstreamStatus.WAITING_FOR_STORE,
                "waiting for the store after the disk filled",
                UpstreamScenarios.CONNECT);
        assertThat(waiting.lastError()).contains("DISK_FULL");
        assertThat(relay.store().health().condition()).isEqualTo(StoreCondition.DISK_FULL);
        assertThat(waiting.eventsReceived())
            .as("the relay stored events before the disk filled")
            .isGreaterThan(events);
        // while full, nothing is read from the primary: the count of received events stands still
        long stuckAt = relay.state().eventsReceived();
        Thread.sleep(2_500); // nothing may happen: an absence can only be checked over some time
        assertThat(relay.state().status()).isEqualTo(UpstreamStatus.WAITING_FOR_STORE);
        assertThat(relay.state().eventsReceived()).isEqualTo(stuckAt);
        LOG.info(
            "DISK FULL round {}: relay waiting after {} events: {}",
            round,
            stuckAt,
            waiting.lastError());

        disk.free();
        UpstreamState back =
            relay.awaitState(
                s -> s.status() == UpstreamStatus.STREAMING && s.eventsReceived() > stuckAt,
                "streaming again after space was freed",
                UpstreamScenarios.CONNECT);
        assertThat(relay.store().health().condition()).isEqualTo(StoreCondition.ACCEPTING);
        LOG.info("DISK FULL round {}: streaming again: {}", round, back);
      }
      assertThat(load.get(2, TimeUnit.MINUTES).transactions()).isPositive();
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      relay.assertIdenticalToPrimary();
      relay.assertSameHistoryAsPrimary(SourceSwitchScenarios.transactionsOf(primary));
      assertThat(relay.store().health().diskFullEvents()).isEqualTo(2);
    } finally {
      background.shutdownNow();
    }
  }

  /**
   * Waits until the store has all the primary had written when called (the load goes on meanwhile).
   */
  private static void awaitBacklogStored(UpstreamUnderTest relay) throws InterruptedException {
    Position primaryNow = relay.primaryPosition();
    eventually(
        UpstreamScenarios.CATCH_UP,
        "the store at or past the primary's " + primaryNow,
        () -> relay.store().readableEnd(),
        end -> end != null && !end.isBefore(primaryNow));
  }
}
