package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.server.downstream.Command;
import org.binlogrelay.server.downstream.DumpRequest;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MariaDB primary of each series of the matrix (10.11 and 11.8, {@link MariadbSeriesTest}), the
 * relay following it, and real MariaDB replicas of the same series and (the host's) {@code
 * mariadb-binlog} served by the relay: replicas by GTID ({@code MASTER_USE_GTID=slave_pos}) and by
 * file/position end up with the primary's data and GTIDs under load and across restarts; dumps from
 * the relay are the primary's dumps byte for byte (server_id of made-up events aside, fake
 * GTID_LIST included); mariadb-binlog copies byte-identical files; refusals are MariaDB's.
 */
@ExtendWith(ServerFarmExtension.class)
class MariadbServingIT {
  private static final Logger LOG = LoggerFactory.getLogger(MariadbServingIT.class);

  /**
   * sysbench oltp_write_only time under which the replicas are stopped and restarted: 60 s, as the
   * issue asks; {@code -Dbinlogrelay.serving.loadSeconds=N} (N >= 30: the replicas stop at 8-16 s
   * and 20-28 s) for shorter runs.
   */
  private static final Duration LOAD = Replicas.loadDuration();

  private static final Duration CATCH_UP = Duration.ofMinutes(3);
  private static final String CAPABLE = "SET @mariadb_slave_capability = 4";

  @TempDir Path dir;

  @MariadbSeriesTest
  void replicasByGtidAndByPositionFollowThePrimaryThroughTheRelay(
      ServerVersion version, ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(ServerSpec.of(version).named("primary").withMaxBinlogSize(1 << 20));
    DatabaseServer byGtid = farm.start(version, "by-gtid");
    DatabaseServer byPosition = farm.start(version, "by-position");
    Sysbench load = Sysbench.against(primary).withRate(40);
    load.prepare();
    try (ServingRelay relay = ServingRelay.follow(primary, dir)) {
      HostAndPort at = farm.backend().hostPortForServers(relay.port());
      ReplicationLink.establish(byGtid, at, Credentials.REPLICATION, "relay");
      byPosition.execute(positionReplication(at, "binlog.000001", 4));
      ReplicasUnderLoad.awaitInitialCopy(primary, relay, byGtid, byPosition);

      ReplicasUnderLoad.run(primary, load, LOAD, byGtid, byPosition, "STOP SLAVE", "START SLAVE");

      String end =
          ReplicasUnderLoad.assertCaughtUpWithThePrimary(primary, relay, byGtid, byPosition);
      assertThat(byGtid.queryValue("SELECT @@global.gtid_slave_pos")).isEqualTo(end);
      assertThat(byPosition.queryValue("SELECT @@global.gtid_slave_pos")).isEqualTo(end);
    }
  }

  @MariadbSeriesTest
  void dumpsFromTheRelayAreThePrimarysDumpsAndMariadbBinlogCopiesIdenticalFiles(
      ServerVersion version, ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(ServerSpec.of(version).named("primary").withMaxBinlogSize(64 << 10));
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(2_000).withRate(100);
    load.prepare();
    String prepared = primary.queryValue("SELECT @@global.gtid_binlog_pos");
    load.run(Duration.ofSeconds(3));
    // A second server_id in domain 0: @@gtid_binlog_state lists both, @@gtid_binlog_pos only the
    // newest.
    primary.execute("SET SESSION server_id = 777", "CREATE DATABASE from_server_777");
    primary.execute("FLUSH BINARY LOGS", "CREATE DATABASE after_flush");
    try (ServingRelay relay = ServingRelay.follow(primary, dir)) {
      relay.awaitQuietAndCaughtUp(Duration.ofMinutes(1));
      String state = primary.queryValue("SELECT @@global.gtid_binlog_state");
      assertThat(state).as("the primary's @@gtid_binlog_state").contains("0-777-").contains(",");
      try (DumpClient client =
          DumpClient.connect(relay.address(), Credentials.REPLICATION, false)) {
        assertThat(client.queryValue("SELECT @@global.gtid_binlog_state")).isEqualTo(state);
        assertThat(client.queryValue("SELECT @@global.gtid_binlog_pos"))
            .isEqualTo(primary.queryValue("SELECT @@global.gtid_binlog_pos"));
      }
      PrimaryComparison same = new PrimaryComparison(primary, relay, false);
      List<Map<String, String>> events =
          primary.queryRows("SHOW BINLOG EVENTS IN 'binlog.000002' LIMIT 4");
      long midFile = Long.parseLong(events.get(3).get("Pos"));
      int nonBlocking = DumpRequest.BINLOG_DUMP_NON_BLOCK;
      int annotate = MARIADB_SEND_ANNOTATE_ROWS;

      same.compare(
          "non-blocking dump of everything, as mariadb-binlog asks",
          List.of("SET @master_binlog_checksum = 'NONE'", CAPABLE),
          dump("binlog.000001", 4, nonBlocking | annotate, 0));
      same.compare(
          "start inside binlog.000002 (log_pos and created cleared)",
          List.of("SET @master_binlog_checksum = 'CRC32'", CAPABLE),
          dump("binlog.000002", midFile, nonBlocking | annotate, 0));
      same.compare(
          "ANNOTATE_ROWS left out when not asked for",
          List.of("SET @master_binlog_checksum = 'CRC32'", CAPABLE),
          dump("binlog.000003", 4, nonBlocking, 0));
      List<String> gtidStart =
          List.of(
              "SET @master_binlog_checksum = 'CRC32'",
              CAPABLE,
              "SET @slave_connect_state = '" + prepared + "'",
              "SET @slave_gtid_strict_mode = 1",
              "SET @slave_gtid_ignore_duplicates = 0");
      if (version.equals(ServerVersion.MARIADB_10_11)) {
        same.compare(
            "GTID start after what sysbench prepare wrote (fake GTID_LIST where it is reached)",
            gtidStart,
            dump("", 4, nonBlocking | annotate, 0));
      } else {
        // 11.4+ starts where its GTID index says (binlog_gtid_index=ON), the relay at the file's
        // start
        same.compareFromFakeGtidList(
            "GTID start after what sysbench prepare wrote",
            gtidStart,
            dump("", 4, nonBlocking | annotate, 0));
      }
      same.compare(
          "no @master_binlog_checksum: refused after the FORMAT_DESCRIPTION",
          List.of(CAPABLE),
          dump("binlog.000002", 4, nonBlocking | annotate, 0));
      Map<String, String> status = primary.queryRows("SHOW MASTER STATUS").get(0);
      same.compareBlocking(
          "a blocking dump that caught up: idle heartbeats",
          List.of(
              "SET @master_binlog_checksum = 'CRC32'",
              CAPABLE,
              "SET @master_heartbeat_period = 200000000"),
          dump(status.get("File"), Long.parseLong(status.get("Position")), annotate, 901),
          27,
          2);

      Path out = Files.createDirectories(dir.resolve("mariadb-binlog-copy"));
      CommandResult copy =
          ChildProcesses.run(
                  List.of(
                      Provisioning.executable("mariadb-binlog", "mariadb-binlog").toString(),
                      "--no-defaults",
                      "--read-from-remote-server",
                      "--protocol=TCP",
                      "--host=127.0.0.1",
                      "--port=" + relay.port(),
                      "--user=repl",
                      "--password=repl-pass",
                      "--raw",
                      "--to-last-log",
                      "--result-file=" + out + "/",
                      "binlog.000001"),
                  dir,
                  dir.resolve("mariadb-binlog.out"),
                  null,
                  Duration.ofMinutes(2))
              .requireSuccess("mariadb-binlog --raw from the relay");
      LOG.info("mariadb-binlog copied from the relay in {} ms", copy.elapsed().toMillis());
      PrimaryComparison.assertSameFiles(
          primary.binlogDir(), out, relay.store().files().stream().map(f -> f.name()).toList());
    }
  }

  @MariadbSeriesTest
  void whatThePrimaryRefusesTheRelayRefusesAlikeAndKeepsServingOthers(
      ServerVersion version, ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(ServerSpec.of(version).named("primary").withMaxBinlogSize(64 << 10));
    DatabaseServer healthy = farm.start(version, "healthy");
    DatabaseServer diverged = farm.start(version, "diverged");
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(2_000).withRate(100);
    load.prepare();
    primary.execute("FLUSH BINARY LOGS", "FLUSH BINARY LOGS");
    long primaryId = primary.serverId();
    try (ServingRelay relay = ServingRelay.follow(primary, dir)) {
      relay.awaitQuietAndCaughtUp(Duration.ofMinutes(1));
      PrimaryComparison same = new PrimaryComparison(primary, relay, false);
      HostAndPort at = farm.backend().hostPortForServers(relay.port());
      ReplicationLink.establish(healthy, at, Credentials.REPLICATION, "relay");
      Replicas.awaitExecuted(healthy, primary.executedGtidSet(), CATCH_UP);
      List<String> setup = List.of("SET @master_binlog_checksum = 'CRC32'", CAPABLE);

      same.compare("unknown file", setup, dump("binlog.000099", 4, 2, 0));
      same.compare("position past the end", setup, dump("binlog.000001", 4_000_000_000L, 2, 0));
      same.compare("position below 4", setup, dump("binlog.000001", 3, 2, 0));
      same.compare("position inside an event", setup, dump("binlog.000001", 5, 2, 0));
      same.compare(
          "GTID not in the binlog", gtidSetup("0-" + primaryId + "-999999"), dump("", 4, 2, 0));
      same.compare(
          "GTID of another server with a higher sequence number on the primary",
          gtidSetup("0-777-5"),
          dump("", 4, 2, 0));

      relay.awaitSettled(Duration.ofMinutes(1));
      relay.store().removeFilesBefore("binlog.000003");
      primary.execute("PURGE BINARY LOGS TO 'binlog.000003'");
      same.compare("GTID position purged", gtidSetup("0-" + primaryId + "-2"), dump("", 4, 2, 0));
      same.compare("purged file", setup, dump("binlog.000002", 4, 2, 0));

      // A real replica with a transaction of its own in domain 0, connecting with its current
      // position.
      diverged.execute("CREATE DATABASE local_extra");
      diverged.execute(currentPos(at));
      ReplicaStatus fromRelay = Replicas.awaitIoError(diverged, Duration.ofSeconds(60));
      diverged.execute("STOP SLAVE", "RESET SLAVE ALL");
      diverged.execute(currentPos(primary.peerAddress()));
      ReplicaStatus fromPrimary = Replicas.awaitIoError(diverged, Duration.ofSeconds(60));
      LOG.info(
          "diverged replica: relay said {} '{}', primary said {} '{}'",
          fromRelay.lastIoErrno(),
          fromRelay.lastIoError(),
          fromPrimary.lastIoErrno(),
          fromPrimary.lastIoError());
      assertThat(fromRelay.lastIoErrno()).isEqualTo(fromPrimary.lastIoErrno()).isEqualTo(1236);
      assertThat(fromRelay.lastIoError()).isEqualTo(fromPrimary.lastIoError());

      load.run(Duration.ofSeconds(3));
      long ms = Replicas.lag(primary, healthy, CATCH_UP);
      LOG.info("FIGURE healthy replica still served after the refusals: caught up in {} ms", ms);
      assertThat(TableChecksums.of(healthy, "sbtest"))
          .isEqualTo(TableChecksums.of(primary, "sbtest"));
    }
  }

  /** BINLOG_SEND_ANNOTATE_ROWS_EVENT: MariaDB's dump flag 0x02. */
  private static final int MARIADB_SEND_ANNOTATE_ROWS = 0x02;

  private static List<String> gtidSetup(String connectState) {
    return List.of(
        "SET @master_binlog_checksum = 'CRC32'",
        CAPABLE,
        "SET @slave_connect_state = '" + connectState + "'",
        "SET @slave_gtid_strict_mode = 1",
        "SET @slave_gtid_ignore_duplicates = 0");
  }

  private static byte[] dump(String file, long position, int flags, long serverId) {
    return new DumpRequest(Command.COM_BINLOG_DUMP, serverId, flags, file, position, null).encode();
  }

  private static String[] positionReplication(HostAndPort source, String file, long position) {
    return new String[] {
      "CHANGE MASTER TO MASTER_HOST='"
          + source.host()
          + "', MASTER_PORT="
          + source.port()
          + ", MASTER_USER='repl', MASTER_PASSWORD='repl-pass', MASTER_LOG_FILE='"
          + file
          + "', MASTER_LOG_POS="
          + position
          + ", MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1",
      "START SLAVE"
    };
  }

  private static String[] currentPos(HostAndPort source) {
    return new String[] {
      "CHANGE MASTER TO MASTER_HOST='"
          + source.host()
          + "', MASTER_PORT="
          + source.port()
          + ", MASTER_USER='repl', MASTER_PASSWORD='repl-pass', MASTER_USE_GTID=current_pos,"
          + " MASTER_CONNECT_RETRY=1",
      "START SLAVE"
    };
  }
}
