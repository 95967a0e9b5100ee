package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.protocol.gtid.GtidInterval;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test side: semi-synchronous replication to the relay, for both flavours. The primary waits for
 * one replica (the relay) and falls back to asynchronous after 500 ms without an acknowledgement.
 */
final class SemiSyncScenarios {
  private static final Logger LOG = LoggerFactory.getLogger(SemiSyncScenarios.class);
  static final long TIMEOUT_MS = 500;
  static final int COMMITS = 200;

  private SemiSyncScenarios() {}

  /**
   * Commit latency without and with semi-sync; the primary counts every commit as acknowledged
   * while the relay is up; without the relay it falls back after the timeout and commits go on;
   * with the relay back and the primary SIGKILLed right after a commit returned, the relay's store
   * has that commit.
   */
  static void acknowledgesDurableCommits(DatabaseServer primary, Path dir) throws Exception {
    primary.execute("CREATE DATABASE semi", "CREATE TABLE semi.t (id BIGINT PRIMARY KEY)");
    SemiSyncSource source = SemiSyncSource.install(primary, TIMEOUT_MS);
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir, b -> b.semiSync(true))) {
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      assertThat(relay.state().semiSync()).as("the relay negotiated semi-sync").isTrue();
      assertThat(source.status("clients")).as("semi-sync clients on the primary").isEqualTo(1);

      CommitLatency without = CommitLatency.measure(primary, "semi.t", 1, COMMITS);
      LOG.info(
          "SEMI-SYNC LATENCY {} without semi-sync (source side disabled, relay async): {}",
          primary,
          without);
      assertThat(relay.state().acksSent()).as("no ack while the primary does not ask").isZero();

      source.enable(true);
      long yes = source.status("yes_tx");
      long no = source.status("no_tx");
      CommitLatency with = CommitLatency.measure(primary, "semi.t", 1_000, COMMITS);
      UpstreamState s = relay.state();
      LOG.info(
          "SEMI-SYNC LATENCY {} with semi-sync (relay acks after its fsync): {}; {}; relay {}",
          primary,
          with,
          source.describe(),
          s);
      assertThat(source.status("yes_tx") - yes)
          .as("commits acknowledged by the relay")
          .isEqualTo(COMMITS);
      assertThat(source.status("no_tx") - no).as("commits that fell back to async").isZero();
      assertThat(source.on()).isTrue();
      assertThat(s.acksSent()).isPositive();
      assertThat(relay.store().durableEnd())
          .as("acked only what is durable")
          .isGreaterThanOrEqualTo(relay.store().readableEnd());

      relay.stopReplicator();
      long noBefore = source.status("no_tx");
      CommitLatency fallback = CommitLatency.measure(primary, "semi.t", 2_000, 20);
      LOG.info(
          "SEMI-SYNC FALLBACK {} with the relay stopped (timeout {} ms): {}; {}",
          primary,
          TIMEOUT_MS,
          fallback,
          source.describe());
      assertThat(fallback.maxMillis())
          .as("the first commit waits for the timeout, not more")
          .isBetween(TIMEOUT_MS * 0.8, TIMEOUT_MS * 10.0);
      assertThat(fallback.percentileMillis(50))
          .as("then commits go on asynchronously")
          .isLessThan(TIMEOUT_MS / 2.0);
      assertThat(source.status("no_tx") - noBefore)
          .as("commits without acknowledgement")
          .isPositive();
      assertThat(source.on()).as("semi-sync switched off").isFalse();

      relay.startReplicator();
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      primary.execute("INSERT INTO semi.t VALUES (3000)");
      AtomicInteger next = new AtomicInteger(3001);
      eventually(
          Duration.ofSeconds(30),
          "semi-sync back on (a commit at each poll)",
          () -> {
            boolean on = source.on();
            if (!on) {
              primary.execute("INSERT INTO semi.t VALUES (" + next.getAndIncrement() + ")");
            }
            return on;
          });
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      killPrimaryRightAfterACommit(primary, source, relay);
    }
  }

  /**
   * Commits in a loop; SIGKILLs the primary meanwhile; every commit that returned is in the store.
   */
  private static void killPrimaryRightAfterACommit(
      DatabaseServer primary, SemiSyncSource source, UpstreamUnderTest relay) throws Exception {
    Baseline base = Baseline.of(primary);
    long noBefore = source.status("no_tx");
    AtomicLong returned = new AtomicLong();
    ExecutorService background = Executors.newSingleThreadExecutor();
    try {
      Future<?> loop =
          background.submit(
              () -> {
                try (Connection c = primary.connect();
                    PreparedStatement insert =
                        c.prepareStatement("INSERT INTO semi.t (id) VALUES (?)")) {
                  for (long id = 10_000; ; id++) {
                    insert.setLong(1, id);
                    insert.executeUpdate();
                    returned.incrementAndGet();
                  }
                }
              });
      // SIGKILL after a random number of returned commits, so that it lands anywhere in a commit.
      long killAfter = 50 + (long) (Math.random() * 50);
      eventually(
          Duration.ofSeconds(60),
          killAfter + " commits returned",
          returned::get,
          n -> n >= killAfter);
      long noJustBefore = source.status("no_tx");
      primary.kill();
      long committed = returned.get();
      try {
        loop.get(30, TimeUnit.SECONDS);
      } catch (ExecutionException expected) {
        LOG.info("commit loop ended by the primary's SIGKILL: {}", expected.getCause().toString());
      }
      assertThat(noJustBefore - noBefore)
          .as("no commit fell back to async before the kill")
          .isZero();
      assertThat(committed).as("commits returned before the kill").isPositive();
      GtidSet stored = relay.store().executedGtids();
      LOG.info(
          "primary SIGKILLed after {} commits returned (semi-sync); the store has {}; relay {}",
          committed,
          stored,
          relay.state());
      assertThat(base.contains(stored, committed))
          .as(
              "the store has the last commit that returned (commit "
                  + committed
                  + " after "
                  + base
                  + ")")
          .isTrue();
    } finally {
      background.shutdownNow();
    }
  }

  /** The primary's own GTIDs before the loop: the loop's commit k is the next k-th. */
  private record Baseline(ServerFlavor flavor, String uuid, long last, long serverId) {
    static Baseline of(DatabaseServer primary) {
      if (primary.flavor() == ServerFlavor.MYSQL) {
        String uuid = primary.queryValue("SELECT @@global.server_uuid");
        MysqlGtidSet set = MysqlGtidSet.parse(primary.queryValue("SELECT @@global.gtid_executed"));
        long last =
            set.intervalsFor(UUID.fromString(uuid), "").stream()
                .mapToLong(GtidInterval::end)
                .max()
                .orElse(0);
        return new Baseline(ServerFlavor.MYSQL, uuid, last, primary.serverId());
      }
      MariadbGtidSet pos =
          MariadbGtidSet.parsePosition(primary.queryValue("SELECT @@global.gtid_binlog_pos"));
      long last = pos.newest(0).map(MariadbGtid::seqNo).orElse(0L);
      return new Baseline(ServerFlavor.MARIADB, null, last, primary.serverId());
    }

    boolean contains(GtidSet stored, long commits) {
      if (flavor == ServerFlavor.MYSQL) {
        return stored.containsAll(
            MysqlGtidSet.parse(uuid + ":" + (last + 1) + "-" + (last + commits)));
      }
      return ((MariadbGtidSet) stored).contains(new MariadbGtid(0, serverId, last + commits));
    }
  }

  static Duration timeout() {
    return Duration.ofMillis(TIMEOUT_MS);
  }

  static void awaitStreaming(UpstreamUnderTest relay) throws InterruptedException {
    relay.awaitStatus(UpstreamStatus.STREAMING, UpstreamScenarios.CONNECT);
  }
}
