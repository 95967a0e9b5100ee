package org.binlogrelay.e2e.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.upstream.RelayMainChild;
import org.binlogrelay.storage.BinlogFileName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive end to end (issue #18, scenarios 1, 3 and 5): a MySQL 9.7 primary with 1 MiB binlogs,
 * the whole relay in a child JVM with {@code --archive} on a real s3proxy, a fresh MySQL 9.7
 * replica. In one run, to keep to one primary, one relay data directory at a time and one s3proxy:
 *
 * <ol>
 *   <li>every closed file is archived once, byte-identical to the primary's;
 *   <li>with the oldest files purged locally (admin API purge, allowed because they are archived) a
 *       replica from scratch by GTID auto-positioning is served across archive and local files to
 *       the primary's GTIDs and table checksums; {@code mysqlbinlog --raw} of an archive-only file
 *       gives the primary's bytes; {@code SHOW BINARY LOGS} has the {@code Tier} column;
 *   <li>the relay is SIGKILLed and replaced by a new one with an empty data directory on the same
 *       port and archive: it bootstraps after the archive's last file and continues from the
 *       primary with no gap and no duplicate; the replica, reconnecting by itself, reaches the
 *       primary's GTIDs and checksums.
 * </ol>
 */
@ExtendWith(ServerFarmExtension.class)
class ArchiveIT {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveIT.class);
  private static final Duration CATCH_UP = Duration.ofSeconds(90);

  @Test
  void mysqlArchiveServesReplicasAndAReplacementRelayBootstrapsFromIt(
      ServerFarm farm, @TempDir Path dir) throws Exception {
    long started = System.nanoTime();
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(1L << 20));
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    ArchiveHarness.createSchema(primary);
    ArchiveHarness.write(primary, 60);

    try (ArchiveHarness archive = ArchiveHarness.start("relays/one")) {
      int port = ArchiveHarness.freePort();
      Path dataA = dir.resolve("relay-a");
      RelayMainChild relayA = archive.relay(primary, dir, dataA, port);
      ReplicationLink link;
      try {
        // (a) every closed file archived once, byte-identical
        ArchiveHarness.write(primary, 60);
        primary.execute("FLUSH BINARY LOGS");
        List<String> closed = ArchiveHarness.closedFiles(primary);
        assertThat(closed.size()).as("closed files on the primary").isGreaterThanOrEqualTo(5);
        archive.awaitArchived(closed, ArchiveHarness.ARCHIVED, relayA);
        archive.assertArchiveIsThePrimarys(primary, closed, true);
        LOG.info(
            "FIGURE archived {} files, each once and byte-identical: {}", closed.size(), closed);

        // (b) purge the oldest files locally; serve a replica across archive -> local
        String purgeTo = closed.get(closed.size() - 2);
        RelayMainChild.Answer purge =
            relayA.post("/api/v1/binlogs/purge", "{\"to\": \"" + purgeTo + "\"}");
        assertThat(purge.code()).as("purge answer " + purge.body()).isEqualTo(200);
        List<String> archiveOnly = closed.subList(0, closed.size() - 2);
        List<String> removed = new ArrayList<>();
        purge.json().path("removed").forEach(n -> removed.add(n.asText()));
        assertThat(removed).as("purged locally").containsExactlyElementsOf(archiveOnly);
        assertThat(ArchiveHarness.localFiles(dataA).keySet())
            .as("local files after the purge")
            .doesNotContainAnyElementsOf(archiveOnly)
            .contains(purgeTo);

        List<List<String>> listing = ArchiveHarness.showBinaryLogs(port, dir);
        LOG.info("SHOW BINARY LOGS on the relay: {}", listing);
        assertThat(listing.get(0)).as("SHOW BINARY LOGS columns").endsWith("Tier");
        int tier = listing.get(0).indexOf("Tier");
        assertThat(listing.get(1)).as("the oldest file's row").startsWith(closed.get(0));
        assertThat(listing.get(1).get(tier)).as("an archive-only file's tier").isEqualTo("archive");
        assertThat(listing.get(listing.size() - 1).get(tier))
            .as("the open file's tier")
            .isEqualTo("local");

        byte[] raw = ArchiveHarness.mysqlbinlogRaw(port, closed.get(0), dir);
        assertThat(raw)
            .as("mysqlbinlog --raw of archive-only " + closed.get(0) + " from the relay")
            .isEqualTo(Files.readAllBytes(primary.binlogDir().resolve(closed.get(0))));

        link =
            ReplicationLink.establish(
                replica, new HostAndPort("127.0.0.1", port), Credentials.REPLICATION, "relay");
        ArchiveHarness.write(primary, 10);
        link.awaitCaughtUp(primary, CATCH_UP);
        assertSameAsPrimary(primary, replica);
        LOG.info(
            "FIGURE a replica from scratch served across {} archive-only and {} local files",
            archiveOnly.size(),
            ArchiveHarness.localFiles(dataA).size());

        // (c) relay replacement: kill -9, a new relay with an empty data dir, same archive
        primary.execute("FLUSH BINARY LOGS");
        ArchiveHarness.write(primary, 5); // the open file A holds when it dies
        List<String> closedAtKill = ArchiveHarness.closedFiles(primary);
        archive.awaitArchived(closedAtKill, ArchiveHarness.ARCHIVED, relayA);
        awaitLocalAsPrimary(primary, dataA, relayA);
        relayA.kill();
        String archiveEnd = last(archive.archivedNames());
        LOG.info("relay A SIGKILLed; the archive ends at {}", archiveEnd);
      } finally {
        relayA.close();
      }
      ArchiveHarness.write(primary, 20); // written while no relay runs

      Path dataB = dir.resolve("relay-b");
      String archiveEnd = last(archive.archivedNames());
      try (RelayMainChild relayB = archive.relay(primary, dir, dataB, port)) {
        ArchiveHarness.write(primary, 20);
        link.awaitCaughtUp(primary, CATCH_UP);
        primary.execute("FLUSH BINARY LOGS");
        awaitLocalAsPrimary(primary, dataB, relayB);
        Map<String, Long> local = ArchiveHarness.localFiles(dataB);
        assertThat(local.keySet().iterator().next())
            .as("relay B's first file: the one after the archive's last (" + archiveEnd + ")")
            .isEqualTo(BinlogFileName.next(archiveEnd));
        for (String name : local.keySet()) {
          assertThat(Files.readAllBytes(dataB.resolve(name)))
              .as("relay B's " + name + " = the primary's")
              .isEqualTo(Files.readAllBytes(primary.binlogDir().resolve(name)));
        }
        List<String> closedNow = ArchiveHarness.closedFiles(primary);
        archive.awaitArchived(closedNow, ArchiveHarness.ARCHIVED, relayB);
        archive.assertArchiveIsThePrimarys(primary, closedNow, true);
        link.awaitCaughtUp(primary, CATCH_UP);
        assertSameAsPrimary(primary, replica);
        byte[] raw = ArchiveHarness.mysqlbinlogRaw(port, closedNow.get(0), dir);
        assertThat(raw)
            .as("mysqlbinlog --raw of " + closedNow.get(0) + " from relay B (archive only)")
            .isEqualTo(Files.readAllBytes(primary.binlogDir().resolve(closedNow.get(0))));
        assertThat(relayB.errorLines()).as("relay B's ERROR lines").isEmpty();
        LOG.info(
            "FIGURE relay B bootstrapped after {}: {} local files identical to the primary's;"
                + " archive {} files; whole test {} s",
            archiveEnd,
            local.size(),
            closedNow.size(),
            Duration.ofNanos(System.nanoTime() - started).toSeconds());
      }
    }
  }

  static void assertSameAsPrimary(DatabaseServer primary, DatabaseServer replica) {
    assertThat(replica.executedGtidSet())
        .as("the replica's GTIDs")
        .isEqualTo(primary.executedGtidSet());
    assertThat(TableChecksums.of(replica, "arch"))
        .as("CHECKSUM TABLE on the replica")
        .isEqualTo(TableChecksums.of(primary, "arch"));
  }

  /**
   * Waits until the relay's local files are the primary's files from its first local one on, each
   * as long as the primary's (nothing is written meanwhile).
   */
  static void awaitLocalAsPrimary(DatabaseServer primary, Path dataDir, RelayMainChild relay)
      throws Exception {
    try {
      eventually(
          CATCH_UP,
          "the relay's local files as long as the primary's",
          () -> {
            if (!relay.isAlive()) {
              throw new AssertionError("the relay exited");
            }
            Map<String, Long> local = ArchiveHarness.localFiles(dataDir);
            Map<String, Long> wanted = new TreeMap<>();
            for (Map<String, String> row : primary.queryRows("SHOW BINARY LOGS")) {
              if (!local.isEmpty()
                  && BinlogFileName.sequence(row.get("Log_name"))
                      >= BinlogFileName.sequence(local.keySet().iterator().next())) {
                wanted.put(row.get("Log_name"), Long.parseLong(row.get("File_size")));
              }
            }
            return List.of(wanted, local);
          },
          both -> !both.get(1).isEmpty() && both.get(0).equals(both.get(1)));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + relay.logTail(40), e);
    }
  }

  private static String last(List<String> names) {
    assertThat(names).as("archived files").isNotEmpty();
    return names.get(names.size() - 1);
  }
}
