package org.binlogrelay.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.binlogrelay.bench.client.SourceAddress;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.flavor.SourceFlavor;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.bench.report.Series;

/**
 * {@code stop-catchup}: the Percona guide's test. Under load (from elsewhere), the replica is
 * stopped ({@code STOP REPLICA}, MariaDB {@code STOP SLAVE}) for {@code --stop}, then started
 * again; the run measures how long the replica takes to execute everything the primary had executed
 * when the replica was started again, polling the replica's executed GTIDs
 * ({@code @@gtid_executed}, MariaDB {@code @@gtid_slave_pos}) every {@code --poll}. The backlog is
 * the transactions the primary committed while the replica was stopped; the plot shows how many of
 * the target's transactions the replica still lacked over time. Works with the replica replicating
 * from the primary directly or through a relay.
 */
final class StopCatchupRun {
  /** What to run. Immutable. */
  record Settings(
      SourceAddress primary,
      SourceAddress replica,
      Duration stop,
      Duration poll,
      Duration timeout,
      Duration connectTimeout) {}

  private final Settings settings;

  StopCatchupRun(Settings settings) {
    this.settings = settings;
  }

  Report run() throws IOException, InterruptedException {
    try (SourceConnection primary = open(settings.primary());
        SourceConnection replica = open(settings.replica())) {
      SourceFlavor flavor = SourceFlavor.of(replica.serverVersion());
      replica.execute(flavor.stopReplicaStatement());
      String atStop = flavor.executedGtids(primary);
      Thread.sleep(settings.stop().toMillis());
      String target = flavor.executedGtids(primary);
      long backlog = flavor.transactionsBetween(atStop, target);
      long missingAtStart = flavor.transactionsBetween(flavor.replicaExecuted(replica), target);
      replica.execute(flavor.startReplicaStatement());
      long t0 = System.nanoTime();
      long deadline = t0 + settings.timeout().toNanos();
      Series remaining = new Series("transactions behind the target");
      remaining.add(0, (double) missingAtStart);
      long left;
      while (true) {
        left = flavor.transactionsBetween(flavor.replicaExecuted(replica), target);
        long now = System.nanoTime();
        remaining.add((now - t0) / 1e9, (double) left);
        if (left == 0) {
          break;
        }
        if (now > deadline) {
          throw new IOException(
              "the replica "
                  + settings.replica()
                  + " still lacked "
                  + left
                  + " of the primary's "
                  + "transactions "
                  + settings.timeout()
                  + " after START; is it replicating?");
        }
        Thread.sleep(settings.poll().toMillis());
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      return new Report(
              "stop-catchup",
              "replica "
                  + settings.replica()
                  + " stopped for "
                  + settings.stop().toSeconds()
                  + " s, then caught up with "
                  + settings.primary())
          .figure("stopped_seconds", "stopped for", settings.stop().toMillis() / 1000.0, "s")
          .figure(
              "backlog_transactions", "transactions the primary committed meanwhile", backlog, "")
          .figure(
              "missing_at_start", "transactions the replica lacked at START", missingAtStart, "")
          .figure("catchup_seconds", "time to caught-up", seconds, "s")
          .figure(
              "catchup_transactions_per_s",
              "catch-up rate",
              missingAtStart / Math.max(1e-9, seconds),
              "trx/s")
          .figure("flavor", "replica flavour", flavor.name(), "")
          .note(
              "caught up = the replica executed every GTID the primary had executed at START; resolution one --poll ("
                  + settings.poll().toMillis()
                  + " ms)")
          .plot("catch-up", "transactions", List.of(remaining));
    }
  }

  private SourceConnection open(SourceAddress address) throws IOException {
    return SourceConnection.open(address, settings.connectTimeout(), 1 << 16, 1 << 24);
  }
}
