package org.binlogrelay.e2e.upstream;

import java.nio.file.Path;
import java.time.Duration;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upstream replicator against a real MariaDB primary (mysql_native_password) of each series of
 * the matrix, 10.11 and 11.8 ({@link MariadbSeriesTest}): the store ends byte-identical to the
 * primary's binlog (ANNOTATE_ROWS, GTID_LIST and BINLOG_CHECKPOINT events included; on 11.8 the
 * events inside a transaction with end_log_pos 0) with the primary's {@code @@gtid_binlog_state}
 * and {@code @@gtid_binlog_pos}.
 */
@ExtendWith(ServerFarmExtension.class)
class UpstreamMariadbIT {
  static final long MAX_BINLOG_SIZE = 2L << 20;

  static DatabaseServer primary(ServerFarm farm, ServerVersion version) {
    return farm.start(ServerSpec.of(version).named("primary").withMaxBinlogSize(MAX_BINLOG_SIZE));
  }

  @MariadbSeriesTest
  void followsWriteLoadByteForByteAndRegistersAsReplica(
      ServerVersion version, ServerFarm farm, @TempDir Path dir) throws Exception {
    UpstreamScenarios.followWriteLoad(primary(farm, version), dir, Duration.ofSeconds(15), 4);
  }

  @MariadbSeriesTest
  void survivesStopsRestartsAndKilledConnections(
      ServerVersion version, ServerFarm farm, @TempDir Path dir) throws Exception {
    UpstreamScenarios.survivesStopsRestartsAndKills(primary(farm, version), dir);
  }

  @MariadbSeriesTest
  void followsThePrimaryThroughARestart(ServerVersion version, ServerFarm farm, @TempDir Path dir)
      throws Exception {
    UpstreamScenarios.followsPrimaryRestarts(primary(farm, version), dir, false);
  }

  @MariadbSeriesTest
  void stopsWithError1236WhenThePrimaryPurgedWhatItNeeds(
      ServerVersion version, ServerFarm farm, @TempDir Path dir) throws Exception {
    UpstreamScenarios.stopsWhenThePrimaryPurgedWhatItNeeds(primary(farm, version), dir);
  }

  @MariadbSeriesTest
  void refusesAPrimaryWithItsOwnServerId(ServerVersion version, ServerFarm farm, @TempDir Path dir)
      throws Exception {
    UpstreamScenarios.refusesThePrimarysServerId(primary(farm, version), dir);
  }

  @MariadbSeriesTest
  void startsFromAGtidPositionOrTheCurrentFile(
      ServerVersion version, ServerFarm farm, @TempDir Path dir) throws Exception {
    DatabaseServer primary = primary(farm, version);
    primary.execute(
        "CREATE DATABASE s", "CREATE TABLE s.t (id INT PRIMARY KEY)", "INSERT INTO s.t VALUES (1)");
    String firstFile = primary.queryValue("SELECT @@global.gtid_binlog_pos");
    primary.execute(
        "FLUSH BINARY LOGS",
        "INSERT INTO s.t VALUES (2)",
        "FLUSH BINARY LOGS",
        "INSERT INTO s.t VALUES (3)");
    UpstreamScenarios.startsWhereConfigured(primary, dir, firstFile);
  }
}
