package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.server.serving.DumpStatus;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fan-out with one client stalled on purpose (it stops reading its socket, which has a 4 KiB
 * receive buffer) while sysbench writes: the other clients keep following the relay's head while
 * the stalled one is blocked, the relay's upstream keeps ingesting, the stalled dump is dropped
 * after the configured {@code stalledReplicaTimeout}, and the others end with the primary's events.
 * Lag is measured in bytes of the store between a client's last event and the relay's readable end,
 * sampled every 100 ms before the stall and during it. MySQL 9.7.
 */
@ExtendWith(ServerFarmExtension.class)
class StalledClientIT {
  private static final Logger LOG = LoggerFactory.getLogger(StalledClientIT.class);
  private static final int OTHERS = 8;
  private static final long STALLED_ID = 30_999;
  private static final Duration STALLED_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration LOAD = Duration.ofSeconds(50);

  @TempDir Path dir;

  @Test
  void aStalledClientNeitherHoldsUpTheOthersNorTheUpstreamAndIsDropped(ServerFarm farm)
      throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(1 << 20));
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(5_000).withRate(100);
    load.prepare();
    try (ServingRelay relay =
        ServingRelay.follow(primary, dir, b -> b.stalledReplicaTimeout(STALLED_TIMEOUT))) {
      relay.awaitCaughtUp(Duration.ofMinutes(1));
      List<StreamFollower> others = new ArrayList<>();
      for (int i = 0; i < OTHERS; i++) {
        others.add(new StreamFollower(relay, 30_000 + i, 0));
      }
      StreamFollower stalled = new StreamFollower(relay, STALLED_ID, 4096);
      List<StreamFollower> all = new ArrayList<>(others);
      all.add(stalled);
      all.forEach(StreamFollower::start);
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        awaitAllAt(relay.store().readableEnd(), relay, all);
        Future<?> running = pool.submit(() -> load.run(LOAD));

        Lag before = sample(relay, others, Duration.ofSeconds(6), () -> false);
        Position headAtStall = relay.store().readableEnd();
        stalled.stall();
        boolean[] blocked = {false};
        Lag during =
            sample(
                relay,
                others,
                Duration.ofSeconds(90),
                () -> {
                  DumpStatus s = dumpOf(relay, STALLED_ID);
                  blocked[0] |= s != null && s.state() == DumpStatus.State.BLOCKED;
                  return s == null;
                });
        assertThat(during.ended).as("the stalled dump dropped within 90 s").isTrue();
        assertThat(blocked[0])
            .as("the stalled dump was seen BLOCKED before it was dropped")
            .isTrue();
        Position headAtDrop = relay.store().readableEnd();
        LOG.info(
            "FIGURE stalled client: head {} at the stall, {} when the relay dropped it; the others' byte"
                + " lag behind the head, max per client, before the stall {} (max {}), during it {} (max {})",
            headAtStall,
            headAtDrop,
            before.maxPerClient,
            before.max(),
            during.maxPerClient,
            during.max());
        assertThat(headAtDrop)
            .as("the upstream kept ingesting during the stall")
            .isGreaterThan(headAtStall);
        for (StreamFollower f : others) {
          assertThat(f.failure()).as("follower " + f.serverId()).isNull();
          assertThat(f.endedByServer()).as("follower " + f.serverId()).isNull();
          assertThat(f.position())
              .as(
                  "follower %d passed the head of the stall's start while the other"
                      + " was stalled",
                  f.serverId())
              .isGreaterThanOrEqualTo(headAtStall);
        }
        assertThat(during.max())
            .as("the others' lag did not grow with the stall")
            .isLessThanOrEqualTo(Math.max(2L << 20, 10 * before.max()));

        stalled.resume();
        eventually(
            Duration.ofSeconds(60),
            "the stalled client reads its stream's end",
            () -> stalled.endedByServer() != null || stalled.failure() != null);
        LOG.info(
            "stalled client: the relay closed its stream after {} events ({})",
            stalled.events(),
            stalled.endedByServer().toString());
        assertThat(stalled.failure()).isNull();

        running.get(LOAD.toSeconds() + 120, TimeUnit.SECONDS);
        relay.awaitCaughtUp(Duration.ofMinutes(1));
        Position target = relay.primaryPosition();
        eventually(
            Duration.ofSeconds(60),
            "all " + OTHERS + " clients at " + target,
            () -> others.stream().allMatch(f -> target.equals(f.position())));
        String reference = StreamFollower.referenceDigest(primary);
        for (StreamFollower f : others) {
          assertThat(f.digestHex()).as("events of follower " + f.serverId()).isEqualTo(reference);
        }
        assertThat(relay.dumps().dumps()).hasSize(OTHERS);
      } finally {
        pool.shutdownNow();
        all.forEach(StreamFollower::stop);
      }
    }
  }

  /** Byte lag samples of some clients. */
  private static final class Lag {
    final Map<Long, Long> maxPerClient = new HashMap<>();
    boolean ended;

    long max() {
      return maxPerClient.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }
  }

  /** Samples every 100 ms for {@code period} or until {@code done} says so. */
  private static Lag sample(
      ServingRelay relay, List<StreamFollower> clients, Duration period, BooleanSupplier done)
      throws InterruptedException {
    Lag lag = new Lag();
    long end = System.nanoTime() + period.toNanos();
    while (System.nanoTime() < end) {
      if (done.getAsBoolean()) {
        lag.ended = true;
        return lag;
      }
      Position head = relay.store().readableEnd();
      List<FileMetadata> files = relay.store().files();
      for (StreamFollower f : clients) {
        assertThat(f.failure()).as("follower " + f.serverId()).isNull();
        Position at = f.position();
        if (at != null) {
          lag.maxPerClient.merge(f.serverId(), bytesBehind(at, head, files), Math::max);
        }
      }
      Thread.sleep(
          100); // the sampling interval of a measurement over a period, not a wait for anything
    }
    return lag;
  }

  /** Bytes of the store from {@code at} to {@code head}; 0 when {@code at} is not before it. */
  static long bytesBehind(Position at, Position head, List<FileMetadata> files) {
    if (!at.isBefore(head)) {
      return 0;
    }
    if (at.file().equals(head.file())) {
      return head.offset() - at.offset();
    }
    long bytes = head.offset();
    for (FileMetadata f : files) {
      if (f.name().equals(at.file())) {
        bytes += f.size() - at.offset();
      } else if (f.name().compareTo(at.file()) > 0 && f.name().compareTo(head.file()) < 0) {
        bytes += f.size();
      }
    }
    return bytes;
  }

  /**
   * Waits until every client received everything up to {@code end} (the relay's head before the
   * load).
   */
  private static void awaitAllAt(Position end, ServingRelay relay, List<StreamFollower> all)
      throws InterruptedException {
    eventually(
        Duration.ofSeconds(60),
        "all clients at " + end + " and all dumps listed",
        () -> {
          for (StreamFollower f : all) {
            assertThat(f.failure()).as("follower " + f.serverId()).isNull();
          }
          return all.stream().allMatch(f -> end.equals(f.position()))
              && relay.dumps().dumps().size() >= all.size();
        });
  }

  private static DumpStatus dumpOf(ServingRelay relay, long serverId) {
    return relay.dumps().dumps().stream()
        .filter(d -> d.name().startsWith("server_id " + serverId + " "))
        .findFirst()
        .orElse(null);
  }
}
