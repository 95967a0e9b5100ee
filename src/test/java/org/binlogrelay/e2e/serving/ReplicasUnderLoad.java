package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test side: what both serving ITs do with their two replicas of the relay (one by GTID, one by the
 * primary's file/position): wait for the initial copy, put load on the primary, check the replicas
 * against it. During the load, sysbench writes on the primary for the given time while each
 * replica's lag is sampled every half second; the GTID replica is stopped from 8 to 16 s and the
 * position one from 20 to 28 s, each with the flavour's own statements, and the time each takes to
 * catch up after its restart is measured. Logs the figures; fails unless both restarts happened.
 */
final class ReplicasUnderLoad {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicasUnderLoad.class);
  private static final Duration CATCH_UP = Duration.ofMinutes(3);

  private ReplicasUnderLoad() {}

  /**
   * Waits until both replicas have what the primary executed so far (the initial copy) and logs how
   * long.
   */
  static void awaitInitialCopy(
      DatabaseServer primary,
      ServingRelay relay,
      DatabaseServer byGtid,
      DatabaseServer byPosition) {
    String prepared = primary.executedGtidSet();
    long first = Replicas.awaitExecuted(byGtid, prepared, CATCH_UP);
    long second = Replicas.awaitExecuted(byPosition, prepared, CATCH_UP);
    LOG.info(
        "FIGURE initial copy through the relay ({} files): by GTID {} ms, by position {} ms",
        relay.store().files().size(),
        first,
        second);
  }

  /**
   * After the load: both replicas executed what the primary did, read up to its position (the
   * relay's last file and offset), have its 4 sysbench tables with the same CHECKSUM TABLE, and no
   * I/O error. Returns the primary's executed GTIDs, which each flavour compares in its own terms.
   */
  static String assertCaughtUpWithThePrimary(
      DatabaseServer primary,
      ServingRelay relay,
      DatabaseServer byGtid,
      DatabaseServer byPosition) {
    String end = primary.executedGtidSet();
    Replicas.awaitExecuted(byGtid, end, CATCH_UP);
    Replicas.awaitExecuted(byPosition, end, CATCH_UP);
    Replicas.awaitReadPosition(byGtid, relay.primaryPosition());
    Replicas.awaitReadPosition(byPosition, relay.primaryPosition());
    TableChecksums expected = TableChecksums.of(primary, "sbtest");
    assertThat(expected.tables()).hasSize(4);
    assertThat(TableChecksums.of(byGtid, "sbtest")).isEqualTo(expected);
    assertThat(TableChecksums.of(byPosition, "sbtest")).isEqualTo(expected);
    assertThat(ReplicaStatus.of(byGtid).lastIoErrno()).isZero();
    assertThat(ReplicaStatus.of(byPosition).lastIoErrno()).isZero();
    LOG.info("relay dumps at the end: {}", relay.dumps().dumps());
    return end;
  }

  /**
   * @param stop the flavour's statement to stop a replica ({@code STOP REPLICA}, {@code STOP
   *     SLAVE})
   * @param start the flavour's statement to start it again
   */
  static void run(
      DatabaseServer primary,
      Sysbench load,
      Duration duration,
      DatabaseServer byGtid,
      DatabaseServer byPosition,
      String stop,
      String start)
      throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<SysbenchResult> running = pool.submit(() -> load.run(duration));
      List<Long> lagGtid = new ArrayList<>();
      List<Long> lagPosition = new ArrayList<>();
      long started = System.nanoTime();
      boolean gtidStopped = false;
      boolean positionStopped = false;
      String restarts = "";
      while (!running.isDone()) {
        long second = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        if (second >= 8 && second < 16 && !gtidStopped && restarts.isEmpty()) {
          byGtid.execute(stop);
          gtidStopped = true;
        } else if (second >= 16 && gtidStopped) {
          byGtid.execute(start);
          gtidStopped = false;
          restarts +=
              "by GTID, stopped 8 s: caught up in "
                  + Replicas.lag(primary, byGtid, CATCH_UP)
                  + " ms; ";
        } else if (second >= 20
            && second < 28
            && !positionStopped
            && !restarts.contains("position")) {
          byPosition.execute(stop);
          positionStopped = true;
        } else if (second >= 28 && positionStopped) {
          byPosition.execute(start);
          positionStopped = false;
          restarts +=
              "by position, stopped 8 s: caught up in "
                  + Replicas.lag(primary, byPosition, CATCH_UP)
                  + " ms";
        } else {
          if (!gtidStopped) {
            lagGtid.add(Replicas.lag(primary, byGtid, CATCH_UP));
          }
          if (!positionStopped) {
            lagPosition.add(Replicas.lag(primary, byPosition, CATCH_UP));
          }
          Replicas.sleep(500);
        }
      }
      SysbenchResult result = running.get(duration.toSeconds() + 180, TimeUnit.SECONDS);
      LOG.info("FIGURE sysbench {}", result);
      LOG.info("FIGURE lag behind the primary under load, by GTID: {}", Replicas.summary(lagGtid));
      LOG.info(
          "FIGURE lag behind the primary under load, by position: {}",
          Replicas.summary(lagPosition));
      LOG.info("FIGURE restarts: {}", restarts);
      assertThat(restarts).contains("by GTID").contains("by position");
    } finally {
      pool.shutdownNow();
    }
  }
}
