package org.binlogrelay.e2e.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerFlavor;
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
 * The archive end to end (issue #18, scenarios 1, 3 and 5), once against MySQL 9.7 and once against
 * MariaDB 10.11: a primary with 1 MiB binlogs, the whole relay in a child JVM with {@code
 * --archive} on a real s3proxy, a fresh replica of the same flavour by GTID (MariaDB: {@code
 * MASTER_USE_GTID=slave_pos}) and, on MariaDB, a second one by file and position from the primary's
 * first file. In one run each, to keep to one primary, one relay data directory at a time and one
 * s3proxy:
 *
 * <ol>
 *   <li>every closed file is archived once, byte-identical to the primary's;
 *   <li>with the oldest files purged locally (admin API purge, allowed because they are archived) a
 *       replica from scratch by GTID auto-positioning is served across archive and local files to
 *       the primary's GTIDs and table checksums; {@code mysqlbinlog --raw} of an archive-only file
 *       gives the primary's bytes; {@code SHOW BINARY LOGS} has the {@code Tier} column;
 *   <li>the relay is SIGKILLed and replaced by a new one with an empty data directory on the same
 *       port and archive: it bootstraps after the archive's last file and continues from the
 *       primary with no gap and no duplicate; the replicas, reconnecting by themselves, reach the
 *       primary's GTIDs and checksums.
 * </ol>
 *
 * <p>The MariaDB run also archives a file of about 7.5 MiB with {@code
 * --archive-multipart-threshold 5M}: uploaded in two parts, byte-identical.
 */
@ExtendWith(ServerFarmExtension.class)
class ArchiveIT {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveIT.class);
  private static final Duration CATCH_UP = Duration.ofSeconds(90);

  /** Relay B's {@code --archive-defer-while-behind}: its backlog is older. */
  private static final Duration DEFER_WHILE_BEHIND = Duration.ofSeconds(3);

  /** {@code --archive-multipart-threshold} of the MariaDB run: 5 MiB, S3's smallest part. */
  private static final long MULTIPART_THRESHOLD = 5L << 20;

  private static final Pattern MULTIPART = Pattern.compile("[0-9a-f]{32}-[0-9]+");
  private static final Pattern MD5 = Pattern.compile("[0-9a-f]{32}");

  @Test
  void mysqlArchiveServesReplicasAndAReplacementRelayBootstrapsFromIt(
      ServerFarm farm, @TempDir Path dir) throws Exception {
    archiveServesReplicasAndAReplacementRelayBootstrapsFromIt(
        farm, dir, ServerVersion.MYSQL_9_7, false);
  }

  /**
   * The same against a MariaDB 10.11 primary, with two MariaDB 10.11 replicas of the relay: one by
   * GTID ({@code MASTER_USE_GTID=slave_pos}), one by file and position from the primary's first
   * file (which the relay then only has in the archive). Here the relay uploads files of 5 MiB and
   * more in parts ({@code --archive-multipart-threshold 5M}, S3's smallest part), and one
   * transaction of about 7.5 MiB makes such a file: its object must carry a multipart ETag ({@code
   * md5-N}) and equal the primary's file byte for byte.
   */
  @Test
  void mariadbArchiveServesReplicasAndAReplacementRelayBootstrapsFromIt(
      ServerFarm farm, @TempDir Path dir) throws Exception {
    archiveServesReplicasAndAReplacementRelayBootstrapsFromIt(
        farm, dir, ServerVersion.MARIADB_10_11, true);
  }

  private static void archiveServesReplicasAndAReplacementRelayBootstrapsFromIt(
      ServerFarm farm, Path dir, ServerVersion version, boolean multipart) throws Exception {
    long started = System.nanoTime();
    boolean mariadb = version.flavor() == ServerFlavor.MARIADB;
    DatabaseServer primary =
        farm.start(ServerSpec.of(version).named("primary").withMaxBinlogSize(1L << 20));
    DatabaseServer replica = farm.start(version, "replica");
    DatabaseServer byPosition = mariadb ? farm.start(version, "replica-by-position") : null;
    ArchiveHarness.createSchema(primary);
    ArchiveHarness.write(primary, 60);
    String[] relayArgs =
        multipart
            ? new String[] {"--archive-multipart-threshold", Long.toString(MULTIPART_THRESHOLD)}
            : new String[0];

    try (ArchiveHarness archive = ArchiveHarness.start("relays/one")) {
      int port = ArchiveHarness.freePort();
      Path dataA = dir.resolve("relay-a");
      RelayMainChild relayA = archive.relay(primary, dir, dataA, port, relayArgs);
      ReplicationLink link;
      try {
        // (a) every closed file archived once, byte-identical
        ArchiveHarness.write(primary, 60);
        String large = null;
        if (multipart) {
          // one transaction of 160 rows of 48 KiB: a file of about 7.5 MiB (files rotate only
          // between transactions), so two parts of at least 5 MiB and the rest
          primary.execute(
              "INSERT INTO arch.t (v) SELECT REPEAT(SHA2(RAND(), 256), 768)"
                  + " FROM arch.t a JOIN arch.t b LIMIT 160");
          // the file that holds it (the primary rotated after it: the one before the last)
          List<String> all =
              primary.queryRows("SHOW BINARY LOGS").stream().map(r -> r.get("Log_name")).toList();
          large = all.get(all.size() - 2);
          ArchiveHarness.write(primary, 5);
        }
        primary.execute("FLUSH BINARY LOGS");
        List<String> closed = ArchiveHarness.closedFiles(primary);
        assertThat(closed.size()).as("closed files on the primary").isGreaterThanOrEqualTo(5);
        archive.awaitArchived(closed, ArchiveHarness.ARCHIVED, relayA);
        archive.assertArchiveIsThePrimarys(primary, closed, true);
        LOG.info(
            "FIGURE archived {} files, each once and byte-identical: {}", closed.size(), closed);
        if (multipart) {
          assertMultipart(archive, primary, closed, large);
        }

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

        List<List<String>> listing =
            mariadb
                ? ArchiveHarness.mariadbShowBinaryLogs(port, dir)
                : ArchiveHarness.showBinaryLogs(port, dir);
        LOG.info("SHOW BINARY LOGS on the relay: {}", listing);
        assertThat(listing.get(0)).as("SHOW BINARY LOGS columns").endsWith("Tier");
        int tier = listing.get(0).indexOf("Tier");
        assertThat(listing.get(1)).as("the oldest file's row").startsWith(closed.get(0));
        assertThat(listing.get(1).get(tier)).as("an archive-only file's tier").isEqualTo("archive");
        assertThat(listing.get(listing.size() - 1).get(tier))
            .as("the open file's tier")
            .isEqualTo("local");

        byte[] raw = binlogRaw(mariadb, port, closed.get(0), dir);
        assertThat(raw)
            .as("mysqlbinlog --raw of archive-only " + closed.get(0) + " from the relay")
            .isEqualTo(Files.readAllBytes(primary.binlogDir().resolve(closed.get(0))));

        HostAndPort relay = new HostAndPort("127.0.0.1", port);
        link = ReplicationLink.establish(replica, relay, Credentials.REPLICATION, "relay");
        if (byPosition != null) {
          byPosition.execute(mariadbByPosition(relay, closed.get(0), 4));
        }
        ArchiveHarness.write(primary, 10);
        link.awaitCaughtUp(primary, CATCH_UP);
        assertSameAsPrimary(primary, replica);
        if (byPosition != null) {
          awaitCaughtUpByPosition(byPosition, primary);
          assertSameAsPrimary(primary, byPosition);
        }
        LOG.info(
            "FIGURE {} replica(s) from scratch served across {} archive-only and {} local files",
            byPosition == null ? 1 : 2,
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
      // written while no relay runs: relay B catches up a closed file (the one A had open) and
      // more, all older than B's --archive-defer-while-behind, so its uploads wait at first
      ArchiveHarness.write(primary, 10);
      primary.execute("FLUSH BINARY LOGS");
      ArchiveHarness.write(primary, 10);
      long writtenAt = System.nanoTime();

      Path dataB = dir.resolve("relay-b");
      String archiveEnd = last(archive.archivedNames());
      List<String> argsB = new ArrayList<>(List.of(relayArgs));
      argsB.addAll(List.of("--archive-defer-while-behind", DEFER_WHILE_BEHIND.toSeconds() + "s"));
      long young = DEFER_WHILE_BEHIND.plusMillis(500).toNanos() - (System.nanoTime() - writtenAt);
      if (young > 0) {
        Thread.sleep(young / 1_000_000 + 1); // the backlog must be older than the threshold
      }
      try (RelayMainChild relayB =
          archive.relay(primary, dir, dataB, port, argsB.toArray(String[]::new))) {
        archive.awaitArchived(
            List.of(BinlogFileName.next(archiveEnd)), ArchiveHarness.ARCHIVED, relayB);
        assertThat(relayB.metric("binlogrelay_archive_deferred_seconds_total"))
            .as("time relay B's uploads waited for its catch-up")
            .isPositive();
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
        if (byPosition != null) {
          awaitCaughtUpByPosition(byPosition, primary);
          assertSameAsPrimary(primary, byPosition);
        }
        byte[] raw = binlogRaw(mariadb, port, closedNow.get(0), dir);
        assertThat(raw)
            .as("mysqlbinlog --raw of " + closedNow.get(0) + " from relay B (archive only)")
            .isEqualTo(Files.readAllBytes(primary.binlogDir().resolve(closedNow.get(0))));
        assertThat(relayB.errorLines()).as("relay B's ERROR lines").isEmpty();
        LOG.info(
            "FIGURE {}: relay B bootstrapped after {}: {} local files identical to the primary's;"
                + " archive {} files; whole test {} s",
            version,
            archiveEnd,
            local.size(),
            closedNow.size(),
            Duration.ofNanos(System.nanoTime() - started).toSeconds());
      }
    }
  }

  /**
   * The file {@code large} is at least the multipart threshold, and its object was uploaded in
   * parts (a multipart ETag, {@code md5-N} with N at least 2); the smaller files' objects were not.
   * (Their bytes equal the primary's: {@link ArchiveHarness#assertArchiveIsThePrimarys}.)
   */
  private static void assertMultipart(
      ArchiveHarness archive, DatabaseServer primary, List<String> closed, String large)
      throws IOException {
    assertThat(closed).as("the closed files").contains(large);
    int multipartObjects = 0;
    for (String name : closed) {
      long size = Files.size(primary.binlogDir().resolve(name));
      String etag =
          archive
              .objects
              .head(archive.prefix + ArchiveHarness.DATA + name)
              .orElseThrow(() -> new AssertionError(name + ": no data object"))
              .etag();
      if (size >= MULTIPART_THRESHOLD) {
        assertThat(etag).as(name + " (" + size + " bytes): a multipart ETag").matches(MULTIPART);
        assertThat(Integer.parseInt(etag.substring(etag.indexOf('-') + 1)))
            .as(name + ": parts")
            .isEqualTo((int) ((size + MULTIPART_THRESHOLD - 1) / MULTIPART_THRESHOLD));
        multipartObjects++;
      } else {
        assertThat(etag).as(name + " (" + size + " bytes): a single PUT's ETag").matches(MD5);
      }
    }
    assertThat(Files.size(primary.binlogDir().resolve(large)))
        .as(large + ": larger than the multipart threshold")
        .isGreaterThan(MULTIPART_THRESHOLD);
    LOG.info(
        "FIGURE {} of {} archived files uploaded in parts ({} is {} bytes)",
        multipartObjects,
        closed.size(),
        large,
        Files.size(primary.binlogDir().resolve(large)));
  }

  /** A MariaDB replica of the relay by file and position ({@code MASTER_USE_GTID=no}). */
  private static String[] mariadbByPosition(HostAndPort source, String file, long position) {
    return new String[] {
      "CHANGE MASTER TO MASTER_HOST='"
          + source.host()
          + "', MASTER_PORT="
          + source.port()
          + ", MASTER_USER='"
          + Credentials.REPLICATION.user()
          + "', MASTER_PASSWORD='"
          + Credentials.REPLICATION.password()
          + "', MASTER_LOG_FILE='"
          + file
          + "', MASTER_LOG_POS="
          + position
          + ", MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1",
      "START SLAVE"
    };
  }

  /**
   * Waits until a replica by file and position has applied every GTID the primary has now; fails at
   * once on an applier error or error 1236 from the relay.
   */
  private static void awaitCaughtUpByPosition(DatabaseServer replica, DatabaseServer primary)
      throws InterruptedException {
    String target = primary.executedGtidSet();
    eventually(
        CATCH_UP,
        replica + " (by file and position) applying " + target,
        () -> {
          if (replica.flavor().dialect().hasExecuted(replica, target)) {
            return true;
          }
          ReplicaStatus status = ReplicaStatus.of(replica);
          if (status.lastSqlErrno() != 0 || status.lastIoErrno() == 1236) {
            throw new AssertionError(
                replica + " stopped:\n" + status.summary() + replica.errorLogTail(30));
          }
          return false;
        });
  }

  /**
   * {@code mysqlbinlog --raw} of one file from the relay: MySQL 9.7's, or the host's MariaDB one.
   */
  private static byte[] binlogRaw(boolean mariadb, int port, String name, Path dir)
      throws IOException {
    return mariadb
        ? ArchiveHarness.mariadbBinlogRaw(port, name, dir)
        : ArchiveHarness.mysqlbinlogRaw(port, name, dir);
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
