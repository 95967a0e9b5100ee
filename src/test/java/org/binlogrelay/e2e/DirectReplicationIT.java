package org.binlogrelay.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.servers.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The harness's smoke test, without the relay: a replica replicating straight from its primary
 * under sysbench write load ends with the same tables and the same GTIDs, for MySQL 9.7, each
 * MariaDB series, and MariaDB's upgrade path (a 10.11 primary, an 11.8 replica). If this fails, no
 * relay test can be trusted.
 */
@ExtendWith(ServerFarmExtension.class)
class DirectReplicationIT {

  private static final Duration LOAD = Duration.ofSeconds(12);
  private static final Duration CATCH_UP = Duration.ofMinutes(2);
  private static final int TABLES = 4;
  private static final int TABLE_SIZE = 10_000;

  @Test
  void mysqlReplicaMatchesItsPrimaryAfterWriteLoad(ServerFarm farm) {
    replicaMatchesItsPrimaryAfterWriteLoad(farm, ServerVersion.MYSQL_9_7);
  }

  @MariadbSeriesTest
  void mariadbReplicaMatchesItsPrimaryAfterWriteLoad(ServerVersion version, ServerFarm farm) {
    replicaMatchesItsPrimaryAfterWriteLoad(farm, version);
  }

  /**
   * MariaDB's upgrade path: the replica is upgraded first, so a newer replica follows an older
   * primary.
   */
  @Test
  void mariadb118ReplicaMatchesA1011PrimaryAfterWriteLoad(ServerFarm farm) {
    DatabaseServer primary = farm.start(ServerVersion.MARIADB_10_11, "primary");
    DatabaseServer replica = farm.start(ServerVersion.MARIADB_11_8, "replica1");
    replicaMatchesItsPrimaryAfterWriteLoad(
        new Topology(primary, List.of(farm.replicate(replica, primary))));
  }

  private static void replicaMatchesItsPrimaryAfterWriteLoad(
      ServerFarm farm, ServerVersion version) {
    replicaMatchesItsPrimaryAfterWriteLoad(farm.startPrimaryWithReplicas(version, 1));
  }

  private static void replicaMatchesItsPrimaryAfterWriteLoad(Topology topology) {
    DatabaseServer primary = topology.primary();
    DatabaseServer replica = topology.replicas().get(0);
    Sysbench load =
        Sysbench.against(primary).withTables(TABLES).withTableSize(TABLE_SIZE).withThreads(2);

    load.prepare();
    SysbenchResult run = load.run(LOAD);
    topology.awaitCaughtUp(CATCH_UP);

    assertThat(run.transactions()).as("sysbench transactions").isPositive();
    TableChecksums onPrimary = TableChecksums.of(primary, load.schema());
    assertThat(onPrimary.tables())
        .containsExactly("sbtest.sbtest1", "sbtest.sbtest2", "sbtest.sbtest3", "sbtest.sbtest4");
    assertThat(TableChecksums.of(replica, load.schema()))
        .as("CHECKSUM TABLE on the replica")
        .isEqualTo(onPrimary);
    for (String table : load.tableNames()) {
      // oltp_write_only deletes and re-inserts a row per transaction: the row count stays the table
      // size.
      assertThat(replica.queryLong("SELECT COUNT(*) FROM sbtest." + table))
          .as("rows in " + table)
          .isEqualTo(TABLE_SIZE);
    }
    String primaryGtids = primary.executedGtidSet();
    assertThat(primaryGtids).as("GTIDs executed on the primary").isNotEmpty();
    assertThat(replica.executedGtidSet())
        .as("GTIDs executed on the replica")
        .isEqualTo(primaryGtids);
    ReplicaStatus status = topology.links().get(0).status();
    assertThat(status.ioRunning() && status.sqlRunning())
        .as("replica threads running:\n" + status.summary())
        .isTrue();
    assertThat(primary.binlogDir()).isDirectoryContaining("glob:**/binlog.000001");
  }
}
