package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.storage.BinlogTool;
import org.binlogrelay.storage.FileMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MariaDB's current LTS end to end: a MariaDB 11.8 primary at its defaults, the relay, and a
 * MariaDB 11.8 replica of the relay; and the upgrade path, a 10.11 primary with an 11.8 replica of
 * the relay. Under sysbench write load (the primary also rotates its binlog three times), then:
 *
 * <ul>
 *   <li>the relay's stored files are the primary's files byte for byte, same names, same order;
 *   <li>CHECKSUM TABLE of the sysbench tables is the same on the primary and the replica;
 *   <li>{@code @@gtid_binlog_pos} is the same on the primary, on the relay ({@code
 *       SELECT @@gtid_binlog_pos} on its SQL port) and on the replica;
 *   <li>MariaDB 11.8's {@code mariadb-binlog --verify-binlog-checksum -vv} prints the same for each
 *       stored file as for the primary's, and the same reading from the relay ({@code
 *       --read-from-remote-server}) as reading from the primary.
 * </ul>
 *
 * <p>The 11.8 primary runs with the harness's options only ({@code ServerOptions}): of those, what
 * differs from MariaDB 11.8's defaults is {@code server_id}, {@code log_bin} (off by default),
 * {@code binlog_format=ROW} (MIXED by default), {@code gtid_strict_mode=ON}, {@code
 * log_slave_updates=ON}, {@code skip_name_resolve} and the smaller {@code innodb_buffer_pool_size}
 * (64M) and {@code innodb_log_file_size} (48M); {@code binlog_checksum=CRC32} and {@code
 * performance_schema=OFF} are the defaults anyway. No {@code max_binlog_size}. Left at their
 * defaults and checked here: {@code binlog_legacy_event_pos=OFF} (events inside a transaction carry
 * end_log_pos 0), {@code binlog_gtid_index=ON} (binlog.NNNNNN.idx files next to the binlogs),
 * {@code binlog_annotate_row_events=ON}, {@code binlog_row_image=FULL}, default collation {@code
 * utf8mb4_uca1400_ai_ci}.
 */
@ExtendWith(ServerFarmExtension.class)
class MariadbVersionMatrixIT {
  private static final Logger LOG = LoggerFactory.getLogger(MariadbVersionMatrixIT.class);
  private static final Duration LOAD = Duration.ofSeconds(20);
  private static final Duration CATCH_UP = Duration.ofMinutes(3);
  private static final int ROTATIONS = 3;

  @TempDir Path dir;

  @Test
  void a118PrimaryAtItsDefaultsThroughTheRelayToA118Replica(ServerFarm farm) throws Exception {
    DatabaseServer primary = farm.start(ServerSpec.of(ServerVersion.MARIADB_11_8).named("primary"));
    assertThat(
            primary.queryRows(
                "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('binlog_legacy_event_pos',"
                    + " 'binlog_gtid_index', 'binlog_annotate_row_events', 'binlog_row_image', 'binlog_checksum',"
                    + " 'collation_server', 'max_binlog_size')"))
        .extracting(row -> row.get("Variable_name") + "=" + row.get("Value"))
        .containsExactlyInAnyOrder(
            "binlog_legacy_event_pos=OFF",
            "binlog_gtid_index=ON",
            "binlog_annotate_row_events=ON",
            "binlog_row_image=FULL",
            "binlog_checksum=CRC32",
            "collation_server=utf8mb4_uca1400_ai_ci",
            "max_binlog_size=1073741824");
    throughTheRelay(farm, primary, ServerVersion.MARIADB_11_8);
    assertThat(primary.binlogDir())
        .as("binlog_gtid_index=ON")
        .isDirectoryContaining("glob:**/binlog.000001.idx");
  }

  @Test
  void a1011PrimaryThroughTheRelayToA118Replica(ServerFarm farm) throws Exception {
    throughTheRelay(
        farm,
        farm.start(ServerSpec.of(ServerVersion.MARIADB_10_11).named("primary")),
        ServerVersion.MARIADB_11_8);
  }

  private void throughTheRelay(
      ServerFarm farm, DatabaseServer primary, ServerVersion replicaVersion) throws Exception {
    DatabaseServer replica = farm.start(replicaVersion, "replica");
    Sysbench load =
        Sysbench.against(primary).withTables(4).withTableSize(5_000).withThreads(2).withRate(100);
    load.prepare();
    ExecutorService background = Executors.newSingleThreadExecutor();
    try (ServingRelay relay = ServingRelay.follow(primary, dir.resolve("store"))) {
      HostAndPort at = farm.backend().hostPortForServers(relay.port());
      ReplicationLink.establish(replica, at, Credentials.REPLICATION, "relay");
      Future<SysbenchResult> running = background.submit(() -> load.run(LOAD));
      for (int i = 1; i <= ROTATIONS; i++) {
        Thread.sleep(
            LOAD.toMillis()
                / (ROTATIONS + 1)); // the scenario's schedule: rotations spread over the load
        primary.execute("FLUSH BINARY LOGS");
      }
      SysbenchResult result = running.get(LOAD.toSeconds() + 180, TimeUnit.SECONDS);
      assertThat(result.transactions()).as("sysbench transactions").isPositive();
      LOG.info("FIGURE {} -> relay -> {}: sysbench {}", primary, replica, result);

      relay.awaitQuietAndCaughtUp(CATCH_UP);
      long ms = Replicas.awaitExecuted(replica, primary.executedGtidSet(), CATCH_UP);
      relay.awaitSettled(CATCH_UP);
      LOG.info("replica caught up {} ms after the relay", ms);

      List<String> names = assertStoredFilesArePrimarys(primary, relay);
      assertThat(names)
          .as("the primary rotated " + ROTATIONS + " times")
          .hasSizeGreaterThan(ROTATIONS);
      TableChecksums expected = TableChecksums.of(primary, "sbtest");
      assertThat(expected.tables()).hasSize(4);
      assertThat(TableChecksums.of(replica, "sbtest"))
          .as("CHECKSUM TABLE on the replica")
          .isEqualTo(expected);
      String position = primary.queryValue("SELECT @@gtid_binlog_pos");
      try (DumpClient client =
          DumpClient.connect(relay.address(), Credentials.REPLICATION, false)) {
        assertThat(client.queryValue("SELECT @@gtid_binlog_pos"))
            .as("@@gtid_binlog_pos on the relay")
            .isEqualTo(position);
      }
      assertThat(replica.queryValue("SELECT @@gtid_binlog_pos"))
          .as("@@gtid_binlog_pos on the replica")
          .isEqualTo(position);
      assertThat(ReplicaStatus.of(replica).lastIoErrno()).isZero();

      assertMariadbBinlogReadsTheSame(primary, relay, names);
      LOG.info(
          "FIGURE {} -> relay -> {}: {} files identical, @@gtid_binlog_pos {} everywhere",
          primary,
          replica,
          names.size(),
          position);
    } finally {
      background.shutdownNow();
    }
  }

  /**
   * The store's files are the primary's binlogs (SHOW BINARY LOGS), byte for byte, the open one
   * included.
   */
  private static List<String> assertStoredFilesArePrimarys(
      DatabaseServer primary, ServingRelay relay) throws Exception {
    List<String> primaryFiles =
        primary.queryRows("SHOW BINARY LOGS").stream().map(r -> r.get("Log_name")).toList();
    List<String> names = relay.store().files().stream().map(FileMetadata::name).toList();
    assertThat(names).as("the relay's files vs SHOW BINARY LOGS").isEqualTo(primaryFiles);
    for (String name : names) {
      assertThat(
              Files.mismatch(
                  relay.store().directory().resolve(name), primary.binlogDir().resolve(name)))
          .as("first differing byte of " + name)
          .isEqualTo(-1L);
    }
    return names;
  }

  /**
   * A dump's artificial ROTATE (end_log_pos 0, the first event sent for each file) carries the
   * server_id of whoever sends it: the primary's own or the relay's (9001), so its CRC32 differs
   * too. What mariadb-binlog prints for it, e.g. {@code #700101 0:00:00 server id 9001 end_log_pos
   * 0 CRC32 0x84986adc \tRotate to binlog.000002 pos: 4}.
   */
  private static final Pattern ARTIFICIAL_ROTATE =
      Pattern.compile(
          "(?m)^(#\\d{6} +\\d+:\\d\\d:\\d\\d server id )(\\d+)( +end_log_pos 0 )"
              + "(CRC32 0x[0-9a-f]{8} )?(\\tRotate to )");

  private static long artificialRotates(String output, long serverId) {
    return ARTIFICIAL_ROTATE
        .matcher(output)
        .results()
        .filter(m -> m.group(2).equals(Long.toString(serverId)))
        .count();
  }

  private static String withoutArtificialServerIds(String output) {
    return ARTIFICIAL_ROTATE.matcher(output).replaceAll("$1ANY$3$5");
  }

  /**
   * MariaDB 11.8's mariadb-binlog on each stored file and on the primary's copy of it: same exit
   * code (0), same output (file paths aside), no ERROR. Then as a client of the relay and of the
   * primary, from the first file to the last: the same output.
   */
  private static void assertMariadbBinlogReadsTheSame(
      DatabaseServer primary, ServingRelay relay, List<String> names) {
    BinlogTool tool = BinlogTool.MARIADB_BINLOG_11_8;
    List<String> gtids = new ArrayList<>();
    for (String name : names) {
      BinlogTool.Dump ours = tool.read(relay.store().directory().resolve(name));
      BinlogTool.Dump theirs = tool.read(primary.binlogDir().resolve(name));
      assertThat(ours.exitCode()).as("%s", ours).isZero();
      assertThat(ours.output()).as("%s", ours).doesNotContain("ERROR");
      assertThat(ours.outputWithoutPath())
          .as("%s on the stored and the primary's %s", tool, name)
          .isEqualTo(theirs.outputWithoutPath());
      gtids.addAll(ours.gtids());
    }
    assertThat(gtids).as("GTIDs mariadb-binlog prints for the stored files").isNotEmpty();
    String[] tls =
        primary.version().equals(ServerVersion.MARIADB_10_11)
            ? new String[] {"--skip-ssl"}
            : new String[0];
    BinlogTool.Dump fromRelay =
        tool.readRemote(relay.address(), Credentials.REPLICATION, names.get(0), tls);
    BinlogTool.Dump fromPrimary =
        tool.readRemote(primary.address(), primary.replicationCredentials(), names.get(0), tls);
    assertThat(fromPrimary.exitCode()).as("%s", fromPrimary).isZero();
    assertThat(fromRelay.exitCode()).as("%s", fromRelay).isZero();
    assertThat(fromRelay.gtids()).as("GTIDs read from the relay").isEqualTo(gtids);
    assertThat(artificialRotates(fromRelay.output(), ServingRelay.SERVER_ID))
        .as("the relay's artificial" + " ROTATEs, one per file, with its own server_id")
        .isEqualTo(names.size());
    assertThat(artificialRotates(fromPrimary.output(), primary.serverId())).isEqualTo(names.size());
    assertThat(withoutArtificialServerIds(fromRelay.output()))
        .as(
            "mariadb-binlog --read-from-remote-server: the relay vs the primary (artificial ROTATEs' server_id"
                + " and CRC32 aside)")
        .isEqualTo(withoutArtificialServerIds(fromPrimary.output()));
    LOG.info(
        "FIGURE mariadb-binlog 11.8 read {} files ({} GTIDs) alike from the store, the primary's files, the"
            + " relay and the primary",
        names.size(),
        gtids.size());
  }
}
