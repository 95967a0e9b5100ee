package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.server.serving.DumpStatus;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fan-out: 50 streaming clients on one relay under load all get the primary's events (same digest
 * as the primary's own dump), reach the primary's position, and cost the relay next to no CPU once
 * idle (MySQL 9.7). Chain: a relay following a relay stores the primary's files byte for byte and
 * serves a real replica (MySQL 9.7, MariaDB 10.11 and 11.8).
 */
@ExtendWith(ServerFarmExtension.class)
class FanOutAndChainIT {
  private static final Logger LOG = LoggerFactory.getLogger(FanOutAndChainIT.class);
  private static final int CLIENTS = 50;

  @TempDir Path dir;

  @Test
  void fiftyClientsShareOneStoredCopyUnderLoad(ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(1 << 20));
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(5_000).withRate(100);
    load.prepare();
    try (ServingRelay relay = ServingRelay.follow(primary, dir)) {
      relay.awaitCaughtUp(Duration.ofMinutes(1));
      List<StreamFollower> followers = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        StreamFollower f = new StreamFollower(relay, 20_000 + i, 0);
        followers.add(f);
        StreamFollower.start(f);
      }
      try {
        load.run(Duration.ofSeconds(20));
        long loadEnded = System.nanoTime();
        relay.awaitCaughtUp(Duration.ofMinutes(1));
        Position target = relay.primaryPosition();
        eventually(
            Duration.ofSeconds(60),
            "all " + CLIENTS + " clients at " + target,
            () -> {
              for (StreamFollower f : followers) {
                assertThat(f.failure()).as("follower " + f.serverId()).isNull();
              }
              return followers.stream().allMatch(f -> target.equals(f.position()));
            });
        long allThere = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - loadEnded);
        String reference = StreamFollower.referenceDigest(primary);
        long storedBytes = relay.store().files().stream().mapToLong(FileMetadata::size).sum();
        for (StreamFollower f : followers) {
          assertThat(f.digestHex()).as("events of follower " + f.serverId()).isEqualTo(reference);
        }
        LOG.info(
            "FIGURE fan-out: {} clients, each got {} events ({} stored bytes), all at {} {} ms after the"
                + " load ended",
            CLIENTS,
            followers.get(0).events(),
            storedBytes,
            target,
            allThere);
        List<DumpStatus> dumps = relay.dumps().dumps();
        assertThat(dumps)
            .hasSize(CLIENTS)
            .allSatisfy(d -> assertThat(d.state()).isEqualTo(DumpStatus.State.CAUGHT_UP));
        assertThat(relay.readers().readers()).hasSize(CLIENTS);

        long cpu = eventLoopCpuNanos();
        Thread.sleep(
            5_000); // the measurement's period (CPU of idle event loops), not a wait for anything
        long idle = TimeUnit.NANOSECONDS.toMillis(eventLoopCpuNanos() - cpu);
        LOG.info(
            "FIGURE fan-out: the relay's event loops used {} ms of CPU in 5 s with {} idle clients"
                + " (heartbeats every second)",
            idle,
            CLIENTS);
        assertThat(idle).as("CPU of idle dumps").isLessThan(1_000);
      } finally {
        followers.forEach(StreamFollower::stop);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("org.binlogrelay.e2e.servers.ServerVersion#matrix")
  void aRelayOfARelayStoresThePrimarysFilesAndServesAReplica(ServerVersion version, ServerFarm farm)
      throws Exception {
    DatabaseServer primary =
        farm.start(ServerSpec.of(version).named("primary").withMaxBinlogSize(256 << 10));
    DatabaseServer replica = farm.start(version, "replica-of-second");
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(2_000).withRate(100);
    load.prepare();
    Path first = Files.createDirectories(dir.resolve("first"));
    Path second = Files.createDirectories(dir.resolve("second"));
    try (ServingRelay relay1 = ServingRelay.follow(primary, first);
        ServingRelay relay2 = ServingRelay.chain(relay1, 9002, second)) {
      ReplicationLink.establish(
          replica,
          farm.backend().hostPortForServers(relay2.port()),
          Credentials.REPLICATION,
          "second relay");
      load.run(Duration.ofSeconds(10));
      primary.execute("FLUSH BINARY LOGS");
      relay1.awaitQuietAndCaughtUp(Duration.ofMinutes(1));
      relay2.awaitCaughtUp(Duration.ofMinutes(1));
      long ms = Replicas.lag(primary, replica, Duration.ofMinutes(2));
      relay2.awaitSettled(Duration.ofMinutes(1));
      List<String> names = relay2.store().files().stream().map(FileMetadata::name).toList();
      assertThat(names).isEqualTo(relay1.store().files().stream().map(FileMetadata::name).toList());
      PrimaryComparison.assertSameFiles(
          primary.binlogDir(), second, names.subList(0, names.size() - 1));
      assertThat(TableChecksums.of(replica, "sbtest"))
          .isEqualTo(TableChecksums.of(primary, "sbtest"));
      assertThat(replica.executedGtidSet()).isEqualTo(primary.executedGtidSet());
      if (version.flavor() == ServerFlavor.MARIADB) {
        assertThat(replica.queryValue("SELECT @@global.gtid_slave_pos"))
            .isEqualTo(primary.executedGtidSet());
      }
      LOG.info(
          "FIGURE chain ({}): primary -> relay -> relay -> replica: {} files identical, replica caught up {}"
              + " ms after the load",
          version,
          names.size() - 1,
          ms);
    }
  }

  /** CPU time of the relay's downstream event loop threads so far. */
  private static long eventLoopCpuNanos() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long total = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("multiThreadIoEventLoopGroup")) {
        long cpu = mx.getThreadCpuTime(t.getId());
        if (cpu > 0) {
          total += cpu;
        }
      }
    }
    return total;
  }
}
