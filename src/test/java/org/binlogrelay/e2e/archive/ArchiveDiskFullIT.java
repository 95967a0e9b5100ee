package org.binlogrelay.e2e.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.binlogrelay.e2e.campaign.TmpfsDisk;
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
 * The relay's local disk filling while the archive is down (issue #18's last fault), end to end: a
 * MySQL 9.7 primary with 1 MiB binlogs, the whole relay in a child JVM with its data directory on a
 * real tmpfs of {@value #ROOM_MIB} MiB (root needed, as in CI; a failed mount fails), local
 * retention {@code --max-binlog-total-size 3M}, archiving to a real s3proxy, and a MySQL 9.7
 * replica of the relay by GTID. With the archive up, retention keeps the disk well below full. Then
 * s3proxy is stopped and the primary writes more than the tmpfs holds: retention may remove no
 * unarchived file, so the store reports {@code DISK_FULL} (status and {@code
 * binlogrelay_store_accepting} 0), the upstream waits ({@code WAITING_FOR_STORE}), the archive's
 * backlog and {@code binlogrelay_retention_kept_unarchived_files} are visible, no unarchived file
 * was removed and the relay runs on. Then s3proxy comes back: the uploads drain, retention frees
 * space, ingest resumes by itself; at the end every closed file of the primary is archived,
 * byte-identical, each object written exactly once, and the replica has the primary's GTIDs and
 * checksums.
 */
@ExtendWith(ServerFarmExtension.class)
class ArchiveDiskFullIT {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveDiskFullIT.class);
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final long ROOM_MIB = 10;

  @Test
  void mysqlDiskFillsWhileTheArchiveIsDownAndAllRecoversWhenItIsBack(
      ServerFarm farm, @TempDir Path dir) throws Exception {
    long started = System.nanoTime();
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(1L << 20));
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    ArchiveHarness.createSchema(primary);

    Path mount = dir.resolve("fs");
    try (TmpfsDisk disk = TmpfsDisk.mount(mount, ROOM_MIB << 20);
        ArchiveHarness archive = ArchiveHarness.start("relays/disk-full")) {
      int port = ArchiveHarness.freePort();
      Path data = mount.resolve("relay-data");
      try (RelayMainChild relay =
          archive.relay(primary, dir, data, port, "--max-binlog-total-size", "3M")) {
        ReplicationLink link =
            ReplicationLink.establish(
                replica, new HostAndPort("127.0.0.1", port), Credentials.REPLICATION, "relay");
        // the archive up: files archived, local retention keeps the disk below 3 MiB of binlogs
        ArchiveHarness.write(primary, 100);
        primary.execute("FLUSH BINARY LOGS");
        link.awaitCaughtUp(primary, WAIT);
        archive.awaitArchived(ArchiveHarness.closedFiles(primary), WAIT, relay);
        eventually(
            WAIT,
            "local retention down to 3 MiB of binlogs",
            () -> ArchiveHarness.localFiles(data),
            files -> files.values().stream().mapToLong(Long::longValue).sum() <= 3L << 20);
        LOG.info("archive up: local files {}, tmpfs used {} bytes", files(data), disk.used());

        // the archive down; the primary writes more than the disk holds
        List<String> archivedBefore = archive.archivedNames();
        archive.s3.stop();
        ArchiveHarness.write(primary, 20 * (int) ROOM_MIB + 40);
        JsonNode waiting =
            relay.awaitUpstream(
                "the upstream waiting for the full store",
                u -> "WAITING_FOR_STORE".equals(u.path("state").asText()),
                WAIT);
        JsonNode store = relay.store();
        LOG.info("DISK FULL: upstream {}, store {}", waiting, store);
        assertThat(store.path("condition").asText())
            .as("the store's condition")
            .isEqualTo("DISK_FULL");
        assertThat(relay.metric("binlogrelay_store_accepting")).as("store accepting").isZero();
        assertThat(relay.metric("binlogrelay_archive_pending_files"))
            .as("files waiting for the archive")
            .isGreaterThanOrEqualTo(3);
        assertThat(relay.metric("binlogrelay_retention_kept_unarchived_files"))
            .as("files retention kept because they are not archived")
            .isPositive();
        assertThat(relay.isAlive()).as("the relay runs").isTrue();
        // nothing unarchived was removed: the local files start at or before the first file
        // the archive lacks
        String firstLocal = files(data).keySet().iterator().next();
        String lastArchived = archivedBefore.get(archivedBefore.size() - 1);
        assertThat(BinlogFileName.sequence(firstLocal))
            .as(
                "the first local file ("
                    + firstLocal
                    + ") against the archive's last "
                    + lastArchived)
            .isLessThanOrEqualTo(BinlogFileName.sequence(lastArchived) + 1);
        LOG.info(
            "DISK FULL: local files {}, tmpfs used {} of {} bytes",
            files(data),
            disk.used(),
            ROOM_MIB << 20);

        // the archive back: uploads drain, retention frees space, ingest resumes by itself
        archive.s3.restart();
        long t0 = System.nanoTime();
        relay.awaitUpstream(
            "streaming again once the archive is back",
            u -> "STREAMING".equals(u.path("state").asText()),
            WAIT);
        LOG.info(
            "FIGURE ingest resumed {} ms after s3proxy came back",
            Duration.ofNanos(System.nanoTime() - t0).toMillis());
        assertThat(relay.store().path("condition").asText()).isEqualTo("ACCEPTING");
        ArchiveHarness.write(primary, 20);
        primary.execute("FLUSH BINARY LOGS");
        link.awaitCaughtUp(primary, WAIT);
        List<String> closed = ArchiveHarness.closedFiles(primary);
        archive.awaitArchived(closed, WAIT, relay);
        archive.assertArchiveIsThePrimarys(primary, closed, true);
        ArchiveIT.assertSameAsPrimary(primary, replica);
        assertThat(relay.metric("binlogrelay_store_accepting")).isEqualTo(1);
        assertThat(relay.isAlive()).as("the relay runs").isTrue();
        LOG.info("the relay's ERROR lines: {}", relay.errorLines());
        LOG.info(
            "FIGURE ArchiveDiskFullIT: {} closed files archived once and byte-identical; local {};"
                + " whole test {} s",
            closed.size(),
            files(data),
            Duration.ofNanos(System.nanoTime() - started).toSeconds());
      }
    }
  }

  private static Map<String, Long> files(Path data) throws IOException {
    return ArchiveHarness.localFiles(data);
  }
}
