package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.server.serving.DumpStatus;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shared batches (the caught-up clients of an event loop served from one read and framing of each
 * batch) under churn, MySQL 9.7 with sysbench writing and two FLUSH BINARY LOGS: four clients
 * follow throughout, one joins late (catches up on its own reads, then joins), one reads slowly (it
 * stops reading until its connection is unwritable, falls behind, then catches up), one is stalled
 * (unwritable for most of the run: the others pass the head meanwhile, it catches up at the end)
 * and one leaves. Every client that stayed ends with the primary's own dump, event for event
 * (SHA-256 of the stored events), and the relay's counters show that batches were shared. One
 * event-loop thread, so that every client is in the same group; small socket buffers, so that a
 * client that stops reading makes its connection unwritable within a second.
 */
@ExtendWith(ServerFarmExtension.class)
class SharedBatchesIT {
  private static final Logger LOG = LoggerFactory.getLogger(SharedBatchesIT.class);
  private static final Duration LOAD = Duration.ofSeconds(20);
  private static final long SLOW = 40_100;
  private static final long STALLED = 40_101;

  @TempDir Path dir;

  @Test
  void everyClientGetsTheStoredEventsWhileClientsJoinFallBehindStallAndLeave(ServerFarm farm)
      throws Exception {
    DatabaseServer primary = farm.start(ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary"));
    Sysbench load = Sysbench.against(primary).withTables(1).withTableSize(2_000).withRate(150);
    load.prepare();
    try (ServingRelay relay =
        ServingRelay.follow(
            primary,
            dir,
            b -> b.sharedBatches(true).stalledReplicaTimeout(Duration.ofMinutes(5)),
            s -> s.ioThreads(1).sendBufferBytes(8192))) {
      relay.awaitCaughtUp(Duration.ofMinutes(1));
      List<StreamFollower> steady = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        steady.add(new StreamFollower(relay, 40_000 + i, 0));
      }
      StreamFollower slow = new StreamFollower(relay, SLOW, 4096);
      StreamFollower stalled = new StreamFollower(relay, STALLED, 4096);
      StreamFollower leaving = new StreamFollower(relay, 40_102, 0);
      List<StreamFollower> first = new ArrayList<>(steady);
      first.addAll(List.of(slow, stalled, leaving));
      first.forEach(StreamFollower::start);
      StreamFollower late = new StreamFollower(relay, 40_103, 0);
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<?> running = pool.submit(() -> load.run(LOAD));
        awaitPast(relay.store().readableEnd(), first, "every client following");

        stalled.stall();
        slow.stall();
        eventually(
            Duration.ofSeconds(30),
            "the stalled and the slow client's connections unwritable",
            () ->
                state(relay, STALLED) == DumpStatus.State.BLOCKED
                    && state(relay, SLOW) == DumpStatus.State.BLOCKED);
        Position atStall = relay.store().readableEnd();
        primary.execute("FLUSH BINARY LOGS");
        StreamFollower.start(late);
        leaving.stop();
        List<StreamFollower> following = new ArrayList<>(steady);
        following.add(late);
        Position afterFlush =
            eventually(
                Duration.ofSeconds(30),
                "the relay in the file after the flush",
                () -> relay.store().readableEnd(),
                p -> !p.file().equals(atStall.file()));
        awaitPast(afterFlush, following, "the others past the rotation while two clients stall");
        assertThat(stalled.position()).as("the stalled client is behind").isLessThan(afterFlush);

        slow.resume();
        awaitPast(afterFlush, List.of(slow), "the slow client caught up");
        primary.execute("FLUSH BINARY LOGS");

        running.get(LOAD.toSeconds() + 120, TimeUnit.SECONDS);
        relay.awaitCaughtUp(Duration.ofMinutes(1));
        Position target = relay.primaryPosition();
        List<StreamFollower> stayed = new ArrayList<>(following);
        stayed.add(slow);
        awaitAt(target, stayed);
        assertThat(stalled.position())
            .as("the stalled client did not hold the others up")
            .isLessThan(target);
        stalled.resume();
        awaitAt(target, List.of(stalled));
        stayed.add(stalled);

        String reference = StreamFollower.referenceDigest(primary);
        for (StreamFollower f : stayed) {
          assertThat(f.digestHex()).as("events of client " + f.serverId()).isEqualTo(reference);
          assertThat(f.endedByServer()).as("client " + f.serverId()).isNull();
        }
        eventually(
            Duration.ofSeconds(30),
            "the client that left is no longer served",
            () -> relay.dumps().dumps().size() == stayed.size());
        long[] shared = relay.dumps().sharedBatchCounts();
        LOG.info(
            "FIGURE shared batches: {} batches read and framed by the shared tails, {} deliveries to"
                + " clients, {} framings; {} events to each client",
            shared[0],
            shared[1],
            shared[2],
            late.events());
        assertThat(shared[0]).as("batches served by shared tails").isPositive();
        assertThat(shared[1]).as("deliveries: several clients per batch").isGreaterThan(shared[0]);
      } finally {
        pool.shutdownNow();
        first.forEach(StreamFollower::stop);
        late.stop();
      }
    }
  }

  private static DumpStatus.State state(ServingRelay relay, long serverId) {
    return relay.dumps().dumps().stream()
        .filter(d -> d.name().startsWith("server_id " + serverId + " "))
        .map(DumpStatus::state)
        .findFirst()
        .orElse(null);
  }

  /** Waits until every client received an event ending at or past {@code head}. */
  private static void awaitPast(Position head, List<StreamFollower> clients, String what)
      throws InterruptedException {
    eventually(
        Duration.ofSeconds(60),
        what + " (past " + head + ")",
        () -> {
          for (StreamFollower f : clients) {
            assertThat(f.failure()).as("client " + f.serverId()).isNull();
          }
          return clients.stream()
              .allMatch(f -> f.position() != null && !f.position().isBefore(head));
        });
  }

  private static void awaitAt(Position target, List<StreamFollower> clients)
      throws InterruptedException {
    eventually(
        Duration.ofSeconds(60),
        "clients at " + target,
        () -> {
          for (StreamFollower f : clients) {
            assertThat(f.failure()).as("client " + f.serverId()).isNull();
          }
          return clients.stream().allMatch(f -> target.equals(f.position()));
        });
  }
}
