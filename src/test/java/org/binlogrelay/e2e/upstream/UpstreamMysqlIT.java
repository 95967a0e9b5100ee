package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;
import static org.binlogrelay.protocol.testing.Eventually.steady;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
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
 * The upstream replicator against a real MySQL 9.7 primary (caching_sha2_password, RSA key fetched
 * without TLS), with small binlog files so that loads rotate several times: the store ends
 * byte-identical to the primary's binlog with the same {@code @@gtid_executed}, across compression,
 * tagged GTIDs, stops, restarts, killed and dead connections and a blocked store.
 */
@ExtendWith(ServerFarmExtension.class)
class UpstreamMysqlIT {
  private static final Logger LOG = LoggerFactory.getLogger(UpstreamMysqlIT.class);
  static final long MAX_BINLOG_SIZE = 2L << 20;

  static DatabaseServer primary(ServerFarm farm, String... options) {
    return farm.start(
        ServerSpec.of(ServerVersion.MYSQL_9_7)
            .named("primary")
            .withMaxBinlogSize(MAX_BINLOG_SIZE)
            .withOptions(options));
  }

  @Test
  void followsWriteLoadByteForByteAndRegistersAsReplica(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    UpstreamScenarios.followWriteLoad(primary(farm), dir, Duration.ofSeconds(15), 4);
  }

  @Test
  void followsCompressedTransactions(ServerFarm farm, @TempDir Path dir) throws Exception {
    DatabaseServer primary = primary(farm, "--binlog-transaction-compression=ON");
    UpstreamScenarios.followWriteLoad(primary, dir, Duration.ofSeconds(8), 2);
    String current = primary.queryRows("SHOW BINARY LOG STATUS").get(0).get("File");
    List<Map<String, String>> events =
        primary.queryRows("SHOW BINLOG EVENTS IN '" + current + "' LIMIT 50");
    assertThat(events)
        .as("compressed transactions in the primary's binlog")
        .anySatisfy(e -> assertThat(e.get("Event_type")).isEqualTo("Transaction_payload"));
  }

  @Test
  void followsTaggedGtids(ServerFarm farm, @TempDir Path dir) throws Exception {
    DatabaseServer primary = primary(farm);
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir)) {
      primary.execute(
          "CREATE DATABASE tagged", "CREATE TABLE tagged.t (id INT PRIMARY KEY, v VARCHAR(20))");
      primary.execute(
          "SET gtid_next = 'AUTOMATIC:relay_tag'",
          "INSERT INTO tagged.t VALUES (1, 'one')",
          "INSERT INTO tagged.t VALUES (2, 'two')",
          "BEGIN",
          "UPDATE tagged.t SET v = 'uno' WHERE id = 1",
          "INSERT INTO tagged.t VALUES (3, 'three')",
          "COMMIT",
          "SET gtid_next = 'AUTOMATIC'",
          "INSERT INTO tagged.t VALUES (4, 'four')",
          "SET gtid_next = 'AUTOMATIC:other_tag'",
          "DELETE FROM tagged.t WHERE id = 2",
          "SET gtid_next = 'AUTOMATIC'");
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      relay.assertIdenticalToPrimary();
      String gtids = relay.store().executedGtids().toString();
      LOG.info("store's GTIDs with tags: {}", gtids);
      assertThat(gtids).contains(":relay_tag:1-3").contains(":other_tag:1");
    }
  }

  @Test
  void survivesStopsRestartsAndKilledConnections(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    UpstreamScenarios.survivesStopsRestartsAndKills(primary(farm), dir);
  }

  @Test
  void followsThePrimaryThroughARestartAndACrash(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    UpstreamScenarios.followsPrimaryRestarts(primary(farm), dir, true);
  }

  @Test
  void stopsWithError1236WhenThePrimaryPurgedWhatItNeeds(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    UpstreamScenarios.stopsWhenThePrimaryPurgedWhatItNeeds(primary(farm), dir);
  }

  @Test
  void refusesAPrimaryWithItsOwnServerId(ServerFarm farm, @TempDir Path dir) throws Exception {
    UpstreamScenarios.refusesThePrimarysServerId(primary(farm), dir);
  }

  @Test
  void startsFromAGtidSetOrTheCurrentFile(ServerFarm farm, @TempDir Path dir) throws Exception {
    DatabaseServer primary = primary(farm);
    primary.execute(
        "CREATE DATABASE s", "CREATE TABLE s.t (id INT PRIMARY KEY)", "INSERT INTO s.t VALUES (1)");
    String firstFile = primary.executedGtidSet();
    primary.execute(
        "FLUSH BINARY LOGS",
        "INSERT INTO s.t VALUES (2)",
        "FLUSH BINARY LOGS",
        "INSERT INTO s.t VALUES (3)");
    UpstreamScenarios.startsWhereConfigured(primary, dir, firstFile);
  }

  /**
   * A connection that goes silent (frozen by a proxy) is declared dead after 3 heartbeat periods
   * and replaced.
   */
  @Test
  void replacesADeadConnection(ServerFarm farm, @TempDir Path dir) throws Exception {
    DatabaseServer primary = primary(farm);
    try (FaultyProxy proxy = new FaultyProxy(primary.address());
        UpstreamUnderTest relay =
            UpstreamUnderTest.follow(primary, proxy.address(), dir, b -> {})) {
      relay.awaitStatus(UpstreamStatus.STREAMING, UpstreamScenarios.CONNECT);
      relay.awaitState(
          s -> s.heartbeatsReceived() > 0,
          "heartbeats while idle (period 500 ms)",
          UpstreamScenarios.CONNECT);
      assertThat(relay.state().heartbeatsReceived()).as("heartbeats while idle").isPositive();
      long frozenAt = System.nanoTime();
      proxy.freezeOpenConnections();
      UpstreamState back =
          relay.awaitState(
              s -> s.connections() == 2 && s.status() == UpstreamStatus.STREAMING,
              "a new connection",
              UpstreamScenarios.CONNECT);
      double seconds = (System.nanoTime() - frozenAt) / 1e9;
      LOG.info(
          "dead connection replaced {} s after the freeze: {}",
          String.format("%.2f", seconds),
          back);
      assertThat(back.lastError()).contains("no event or heartbeat").contains("1500 ms");
      assertThat(seconds).as("detection after 3 x 500 ms, plus backoff").isBetween(1.4, 6.0);
      primary.execute("CREATE DATABASE after_freeze");
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      relay.assertIdenticalToPrimary();
    }
  }

  /**
   * While the store is blocked (its writer thread held in a readable-boundary listener, as a
   * stalled disk would hold it), the relay reads nothing more from the socket although the primary
   * keeps writing; once the store moves again, the same connection catches up.
   */
  @Test
  void aBlockedStoreStopsTheReadingNotTheRelay(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    DatabaseServer primary = primary(farm);
    Sysbench sysbench = UpstreamScenarios.load(primary).withRate(200);
    sysbench.prepare();
    ExecutorService background = Executors.newSingleThreadExecutor();
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir)) {
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      Future<SysbenchResult> run = background.submit(() -> sysbench.run(Duration.ofSeconds(10)));
      UpstreamScenarios.awaitMoreEvents(relay, 200, "events under load");
      AtomicBoolean block = new AtomicBoolean(true);
      CountDownLatch blocked = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      relay
          .store()
          .readable()
          .addListener(
              p -> {
                if (block.getAndSet(false)) {
                  blocked.countDown();
                  try {
                    release.await(30, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
              });
      assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
      steady(
          UpstreamScenarios.CONNECT,
          Duration.ofMillis(300),
          "the bytes the relay read",
          () -> relay.state().bytesReceived());
      UpstreamState early = relay.state();
      var primaryEarly = relay.primaryPosition();
      var primaryLate =
          eventually(
              UpstreamScenarios.CATCH_UP,
              "the primary 256 KiB past " + primaryEarly + " while the store is blocked",
              relay::primaryPosition,
              p ->
                  !p.file().equals(primaryEarly.file())
                      || p.offset() - primaryEarly.offset() >= 256 << 10);
      UpstreamState late = relay.state();
      LOG.info(
          "store blocked: relay received {} -> {} bytes; primary at {} -> {}",
          early.bytesReceived(),
          late.bytesReceived(),
          primaryEarly,
          primaryLate);
      assertThat(late.bytesReceived())
          .as("nothing read while the store is blocked")
          .isEqualTo(early.bytesReceived());
      assertThat(late.eventsReceived()).isEqualTo(early.eventsReceived());
      release.countDown();
      run.get(2, TimeUnit.MINUTES);
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      assertThat(relay.state().connections()).as("the same connection caught up").isEqualTo(1);
      relay.assertIdenticalToPrimary();
    } finally {
      background.shutdownNow();
    }
  }

  /**
   * How fast the relay ingests a backlog: the primary writes first, then the relay copies it all.
   */
  @Test
  void measuresIngestRateOfABacklog(ServerFarm farm, @TempDir Path dir) throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(16L << 20));
    Sysbench sysbench =
        Sysbench.against(primary).withTables(4).withTableSize(50_000).withThreads(2);
    sysbench.prepare();
    sysbench.run(Duration.ofSeconds(20));
    long backlog =
        primary.queryRows("SHOW BINARY LOGS").stream()
            .mapToLong(r -> Long.parseLong(r.get("File_size")))
            .sum();
    long started = System.nanoTime();
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir)) {
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      double seconds = (System.nanoTime() - started) / 1e9;
      UpstreamState state = relay.state();
      LOG.info(
          "INGEST RATE: backlog of {} bytes in {} files copied in {} s (connect included): {} MB/s,"
              + " {} events/s, {} transactions/s; {}",
          backlog,
          relay.store().files().size(),
          String.format("%.2f", seconds),
          String.format("%.1f", state.bytesReceived() / seconds / 1e6),
          String.format("%.0f", state.eventsReceived() / seconds),
          String.format("%.0f", state.transactionsReceived() / seconds),
          state);
      relay.assertIdenticalToPrimary();
    }
  }
}
