package org.binlogrelay.e2e.upstream;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import org.binlogrelay.e2e.servers.DatabaseServer;

/**
 * Test side: commit latencies seen by a client of the primary, one autocommit single-row INSERT at
 * a time over one JDBC connection, and their percentiles.
 *
 * @param nanos each commit's latency, sorted
 */
record CommitLatency(long[] nanos) {

  /** Runs {@code count} commits of {@code INSERT INTO table (id) VALUES (firstId + i)}. */
  static CommitLatency measure(DatabaseServer primary, String table, long firstId, int count)
      throws SQLException {
    long[] nanos = new long[count];
    try (Connection c = primary.connect();
        PreparedStatement insert =
            c.prepareStatement("INSERT INTO " + table + " (id) VALUES (?)")) {
      for (int i = 0; i < count; i++) {
        insert.setLong(1, firstId + i);
        long started = System.nanoTime();
        insert.executeUpdate();
        nanos[i] = System.nanoTime() - started;
      }
    }
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return new CommitLatency(sorted);
  }

  double percentileMillis(double p) {
    int index = (int) Math.min(nanos.length - 1, Math.ceil(p / 100.0 * nanos.length) - 1);
    return nanos[Math.max(0, index)] / 1e6;
  }

  double maxMillis() {
    return nanos[nanos.length - 1] / 1e6;
  }

  @Override
  public String toString() {
    return String.format(
        "%d commits: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
        nanos.length,
        percentileMillis(50),
        percentileMillis(90),
        percentileMillis(99),
        maxMillis());
  }
}
