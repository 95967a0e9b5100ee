package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.server.upstream.StartPosition;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.FileMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MySQL 9.7 primary restarted with another {@code --log-bin} base name (issue 8's edge case): the
 * primary starts a new index, {@code newbase.000001}, and keeps its GTIDs. A MySQL replica using
 * GTID auto-position just continues (checked here on a replica straight from the primary), and so
 * does the relay.
 *
 * <p>The relay wrote its store from this primary, so it would resume by file and position and ask
 * for a {@code binlog.*} file the primary's new index no longer lists (error 1236). {@code
 * ResumePlan} sees that the primary does not list the file and continues by GTID instead, into
 * files of the relay's naming ({@code RelayFiles}), as after a source switch: the files stored
 * before the restart stay byte-identical to the primary's old files, the next stored file is {@code
 * binlog.(N+1)} with the relay's server_id in its FORMAT_DESCRIPTION and the transactions of {@code
 * newbase.000001}, each transaction is stored once, and the store's GTIDs end equal to the
 * primary's.
 *
 * <p>It also checks the alternative docs/troubleshooting.md gives for keeping the primary's new
 * names: a new store started at the old store's GTIDs begins with {@code newbase.000001},
 * byte-identical to the primary's.
 */
@ExtendWith(ServerFarmExtension.class)
class PrimaryBasenameChangeIT {
  private static final Logger LOG = LoggerFactory.getLogger(PrimaryBasenameChangeIT.class);

  /**
   * The FORMAT_DESCRIPTION's flags byte, after the magic number and the 17-byte event header start.
   */
  private static final int IN_USE_FLAG_OFFSET = 4 + 17;

  /** Where a binlog file's FORMAT_DESCRIPTION starts, after the magic number. */
  private static final int FORMAT_DESCRIPTION_OFFSET = 4;

  @Test
  void continuesByGtidWhenThePrimaryRestartsWithAnotherBasename(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(512 * 1024));
    // what the relay should match: a MySQL replica on GTID auto-position, straight from the primary
    ReplicationLink direct = farm.replicate(farm.start(ServerVersion.MYSQL_9_7, "direct"), primary);
    Sysbench sysbench =
        Sysbench.against(primary).withTables(2).withTableSize(2_000).withThreads(1).withRate(100);
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir.resolve("relay"))) {
      sysbench.prepare();
      relay.awaitStatus(UpstreamStatus.STREAMING, UpstreamScenarios.CONNECT);
      SysbenchResult result = sysbench.run(Duration.ofSeconds(5));
      assertThat(result.transactions()).isPositive();
      relay.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
      relay.assertIdenticalToPrimary();
      GtidSet beforeRestart = UpstreamUnderTest.executedOn(primary);
      List<String> before = relay.store().files().stream().map(FileMetadata::name).toList();
      Map<String, byte[]> primaryOldFiles = new HashMap<>();

      primary.restart(primary.spec().withBinlogBaseName("newbase"));
      for (String name : before) {
        primaryOldFiles.put(name, Files.readAllBytes(primary.binlogDir().resolve(name)));
      }
      primary.execute(
          "CREATE DATABASE after_rename",
          "CREATE TABLE after_rename.t (id INT PRIMARY KEY)",
          "INSERT INTO after_rename.t VALUES (1)");
      SysbenchResult after = sysbench.run(Duration.ofSeconds(3));
      assertThat(after.transactions()).isPositive();

      List<String> primaryFiles =
          primary.queryRows("SHOW BINARY LOGS").stream().map(r -> r.get("Log_name")).toList();
      // a new index of newbase.* files only (the load after the restart may have rotated past the
      // first)
      assertThat(primaryFiles)
          .as("the primary's index after the restart with --log-bin=newbase")
          .isNotEmpty()
          .allSatisfy(name -> assertThat(name).startsWith("newbase."))
          .first()
          .isEqualTo("newbase.000001");
      GtidSet afterRestart = UpstreamUnderTest.executedOn(primary);
      assertThat(afterRestart.containsAll(beforeRestart))
          .as(
              "the primary keeps its GTIDs across the rename: "
                  + beforeRestart
                  + " in "
                  + afterRestart)
          .isTrue();
      assertThat(beforeRestart.containsAll(afterRestart))
          .as("it committed more in newbase.000001")
          .isFalse();

      direct.awaitCaughtUp(primary, UpstreamScenarios.CATCH_UP);
      assertThat(direct.replica().executedGtidSet())
          .as("a MySQL replica continues across the rename")
          .isEqualTo(primary.executedGtidSet());

      relay.awaitSameGtids(UpstreamScenarios.CATCH_UP);
      assertThat(relay.transitions())
          .as("the relay's status changes")
          .noneMatch(st -> st.status() == UpstreamStatus.FAILED);
      relay.assertSameHistoryAsPrimary(SourceSwitchScenarios.transactionsOf(primary));

      List<FileMetadata> stored = relay.store().files();
      List<String> names = stored.stream().map(FileMetadata::name).toList();
      LOG.info(
          "stored files: {} (before the restart: {}); primary's index: {}",
          names,
          before,
          primaryFiles);
      assertThat(names)
          .as("the old files, then the relay's")
          .startsWith(before.toArray(String[]::new))
          .hasSizeGreaterThan(before.size())
          .allSatisfy(name -> assertThat(name).startsWith("binlog."));
      for (FileMetadata f : stored) {
        byte[] ours = Files.readAllBytes(relay.store().directory().resolve(f.name()));
        byte[] theirs = primaryOldFiles.get(f.name());
        if (theirs == null) { // a file of the relay's naming, holding newbase.000001's transactions
          long serverId = EventHeader.parse(ours, FORMAT_DESCRIPTION_OFFSET).serverId();
          assertThat(serverId)
              .as("server_id in the FORMAT_DESCRIPTION of " + f.name())
              .isEqualTo(UpstreamUnderTest.RELAY_SERVER_ID);
          continue;
        }
        if (!f.name().equals(before.get(before.size() - 1))) {
          assertThat(Arrays.mismatch(ours, theirs))
              .as("first differing byte of " + f.name())
              .isEqualTo(-1);
          continue;
        }
        // the file open at the restart: the relay closed it as it was when it went on by GTID; the
        // primary's clean shutdown cleared the in-use flag in its copy (and may have added a STOP)
        LOG.info(
            "{} open at the restart: {} bytes stored, {} on the primary; in-use flag here 0x{}, there 0x{}",
            f.name(),
            ours.length,
            theirs.length,
            Integer.toHexString(ours[IN_USE_FLAG_OFFSET]),
            Integer.toHexString(theirs[IN_USE_FLAG_OFFSET]));
        assertThat(ours.length).as(f.name() + " size").isLessThanOrEqualTo(theirs.length);
        assertThat(Arrays.mismatch(ours, 0, IN_USE_FLAG_OFFSET, theirs, 0, IN_USE_FLAG_OFFSET))
            .as("first differing byte of " + f.name() + " before its in-use flag")
            .isEqualTo(-1);
        assertThat(
                Arrays.mismatch(
                    ours,
                    IN_USE_FLAG_OFFSET + 1,
                    ours.length,
                    theirs,
                    IN_USE_FLAG_OFFSET + 1,
                    ours.length))
            .as("first differing byte of " + f.name() + " after its in-use flag")
            .isEqualTo(-1);
      }
      Map<String, String> status = primary.queryRows("SHOW BINARY LOG STATUS").get(0);
      LOG.info(
          "the primary went on in {} at {} with {}",
          status.get("File"),
          status.get("Position"),
          primary.executedGtidSet());

      // what a new store started at the old store's GTIDs gets: the primary's new file under its
      // new name,
      // but only the history written since the restart (newbase.000001's PREVIOUS_GTIDS is empty)
      String oldStoreGtids = beforeRestart.toString();
      try (UpstreamUnderTest fresh =
          UpstreamUnderTest.follow(
              primary, dir.resolve("fresh"), b -> b.start(StartPosition.gtids(oldStoreGtids)))) {
        fresh.awaitCaughtUp(UpstreamScenarios.CATCH_UP);
        assertThat(fresh.store().files())
            .extracting(FileMetadata::name)
            .as("the new store's files")
            .isEqualTo(primaryFiles);
        for (String name : primaryFiles) {
          Path ourFile = fresh.store().directory().resolve(name);
          Path theirFile = primary.binlogDir().resolve(name);
          // a file the primary moved on from gets its in-use flag cleared by the store's syncer
          // thread after the rotation (StoreWriter's CloseJob): caught up is not yet closed
          eventually(
              UpstreamScenarios.CATCH_UP,
              "the new store's " + name + " as the primary's",
              () -> Arrays.equals(Files.readAllBytes(ourFile), Files.readAllBytes(theirFile)));
          assertThat(Files.readAllBytes(ourFile))
              .as("the new store's " + name + " vs the primary's")
              .isEqualTo(Files.readAllBytes(theirFile));
        }
        assertThat(fresh.store().executedGtids().toString())
            .as("the new store's GTIDs: only the transactions since the restart")
            .isEqualTo(sinceRestart(oldStoreGtids, primary.executedGtidSet()));
      }
    }
  }

  /**
   * {@code uuid:(n+1)-m} for a one-server history that went from {@code uuid:1-n} to {@code
   * uuid:1-m}.
   */
  private static String sinceRestart(String before, String after) {
    String uuid = after.substring(0, after.indexOf(':'));
    assertThat(before.replaceAll("\\s", ""))
        .as("the old history, one server's")
        .startsWith(uuid + ":1-");
    long n = Long.parseLong(before.substring(before.lastIndexOf('-') + 1).strip());
    long m = Long.parseLong(after.substring(after.lastIndexOf('-') + 1));
    return n + 1 == m ? uuid + ":" + m : uuid + ":" + (n + 1) + "-" + m;
  }
}
