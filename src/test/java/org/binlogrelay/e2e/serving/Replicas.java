package org.binlogrelay.e2e.serving;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.storage.Position;

/**
 * Test side: waiting for replicas and measuring how far behind they are, with every wait bounded
 * and failing with the replica's status and error log.
 */
final class Replicas {
  private Replicas() {}

  /**
   * Waits until {@code replica} executed {@code gtids} (a value of the flavour's executed-GTID
   * query); returns ms.
   */
  static long awaitExecuted(DatabaseServer replica, String gtids, Duration timeout) {
    long started = System.nanoTime();
    try {
      eventually(
          timeout,
          replica + " executing " + gtids,
          () -> {
            if (replica.flavor().dialect().hasExecuted(replica, gtids)) {
              return true;
            }
            ReplicaStatus status = ReplicaStatus.of(replica);
            if (status.lastSqlErrno() != 0 || status.lastIoErrno() == 1236) {
              throw new AssertionError(replica + " stopped short of " + gtids);
            }
            return false;
          });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + "; it has "
              + replica.executedGtidSet()
              + "\n"
              + ReplicaStatus.of(replica).summary()
              + replica.errorLogTail(30),
          e);
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
  }

  /** The primary's GTIDs now, and how long until {@code replica} has them: a lag sample in ms. */
  static long lag(DatabaseServer primary, DatabaseServer replica, Duration timeout) {
    return awaitExecuted(replica, primary.executedGtidSet(), timeout);
  }

  /** Waits until the replica reports an IO error and returns its status. */
  static ReplicaStatus awaitIoError(DatabaseServer replica, Duration timeout) {
    try {
      return eventually(
          timeout,
          replica + " reporting an IO error",
          () -> ReplicaStatus.of(replica),
          status -> status.lastIoErrno() != 0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /**
   * Waits (up to 10 s) until the replica's IO thread says it read up to {@code end} of the
   * primary's binlog ({@code Source_Log_File}/{@code Read_Source_Log_Pos}, MariaDB {@code
   * Master_Log_File}/{@code Read_Master_Log_Pos}): positions stay right across skipped transactions
   * and reconnections.
   */
  static void awaitReadPosition(DatabaseServer replica, Position end) {
    try {
      eventually(
          Duration.ofSeconds(10),
          replica + " read up to " + end,
          () -> {
            Map<String, String> c = ReplicaStatus.of(replica).columns();
            String file =
                c.containsKey("Source_Log_File")
                    ? c.get("Source_Log_File")
                    : c.get("Master_Log_File");
            String pos =
                c.containsKey("Read_Source_Log_Pos")
                    ? c.get("Read_Source_Log_Pos")
                    : c.get("Read_Master_Log_Pos");
            return file + ":" + pos;
          },
          read -> read.equals(end.file() + ":" + end.offset()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Median, 95th percentile and maximum of samples, for logs and the report. */
  static String summary(List<Long> samples) {
    if (samples.isEmpty()) {
      return "no samples";
    }
    List<Long> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    long p50 = sorted.get(sorted.size() / 2);
    long p95 = sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.95) - 1));
    return sorted.size()
        + " samples: median "
        + p50
        + " ms, p95 "
        + p95
        + " ms, max "
        + sorted.get(sorted.size() - 1)
        + " ms";
  }

  /**
   * How long the serving ITs put sysbench load on their primaries: the system property {@code
   * binlogrelay.serving.loadSeconds}, 60 s by default, at least 30 s.
   */
  static Duration loadDuration() {
    long seconds = Long.getLong("binlogrelay.serving.loadSeconds", 60);
    if (seconds < 30) {
      throw new IllegalArgumentException(
          "binlogrelay.serving.loadSeconds must be at least 30 (the replicas are"
              + " stopped at 8-16 s and 20-28 s of the load), got "
              + seconds);
    }
    return Duration.ofSeconds(seconds);
  }

  /**
   * A pause between two samples, or a watcher's cadence; waits for a condition use {@code
   * Eventually}.
   */
  static void sleep(long millis) {
    try {
      Thread.sleep(
          millis); // the pause asked for: a sampling interval or a watcher's cadence, not a wait
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
