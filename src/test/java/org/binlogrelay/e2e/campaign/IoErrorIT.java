package org.binlogrelay.e2e.campaign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's disk fails its writes under load: its data directory is an ext4 on a loop device
 * whose image lies on a tmpfs ({@link LoopExt4Disk}), and that tmpfs is filled up, so the device
 * fails ext4's writeback (the kernel logs "I/O error ... writing to inode"). The application sees
 * it only at {@code fsync}, as ENOSPC (the loop device's BLK_STS_NOSPC): writes keep landing in the
 * page cache, where the relay's readers see them.
 *
 * <p>The relay (MySQL 9.7 primary under sysbench, 25 tx/s; a MySQL 9.7 replica behind it) stays up
 * with its store not accepting writes (status: the condition and the failed force, upstream
 * WAITING_FOR_STORE, {@code binlogrelay_store_accepting 0}) and serves the replica what it has.
 * Once the device takes writes again the store resumes by itself: after a failed force nothing
 * after the durable boundary is known to be on disk (ext4 leaves those blocks unwritten extents
 * that read back as zeros once the page cache lets them go), so it cuts back to that boundary and
 * the primary sends the rest again. The checks read the disk, not the page cache: the relay is
 * stopped and the ext4 unmounted and mounted again before its files are compared with the primary's
 * byte for byte (each GTID once); the replica's GTID set and CHECKSUM TABLE equal the primary's.
 */
@ExtendWith(ServerFarmExtension.class)
class IoErrorIT {
  private static final Logger LOG = LoggerFactory.getLogger(IoErrorIT.class);
  private static final Duration WAIT = Duration.ofMinutes(2);
  private static final String CUT_BACK = "cutting the store back to it";

  @Test
  void relayWaitsOutFailingDeviceWritesAndKeepsOnlyWhatIsOnDisk(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    try (CampaignTopology t =
        CampaignTopology.startOnLoopDevice(farm, ServerVersion.MYSQL_9_7, dir, 128L << 20)) {
      LoopExt4Disk disk = (LoopExt4Disk) t.disk();
      FaultCampaign.createMarkers(t.primary());
      Sysbench sysbench = Sysbench.against(t.primary()).withRate(25);
      sysbench.prepare();
      CampaignAdminClient admin = new CampaignAdminClient(t);
      try (LoadDriver load = LoadDriver.start(sysbench, t.primary())) {
        t.awaitReplicaHas(t.primary().executedGtidSet(), WAIT); // the chain carries the load
        long kernelErrors = kernelWriteErrors(disk);
        long size = disk.failWrites();
        JsonNode store = admin.awaitWaitingForStore(WAIT);
        LOG.info("IO ERROR: backing tmpfs shrunk to {} bytes; relay store: {}", size, store);
        assertThat(store.get("condition").asText()).as("fsync's ENOSPC").isEqualTo("DISK_FULL");
        assertThat(store.get("lastError").asText())
            .contains("forcing")
            .contains("No space left on device");
        // The ENOSPC came from the device, not from ext4: the file system itself still has room.
        // (The kernel's
        // "I/O error" lines are only logged: printk rate-limits them, so after another failing
        // device a few
        // seconds earlier, such as the fault campaign's, none may appear for this one.)
        long ext4Free = Files.getFileStore(disk.path()).getUsableSpace();
        assertThat(ext4Free)
            .as("free bytes of the ext4 while its device fails writes")
            .isGreaterThan(8L << 20);
        LOG.info(
            "IO ERROR: the ext4 has {} bytes free; kernel write-error lines for {}: {} before, {} now",
            ext4Free,
            disk.device(),
            kernelErrors,
            kernelWriteErrors(disk));
        assertThat(admin.metric("binlogrelay_store_accepting")).isEqualTo(0.0);
        String stored = store.get("executedGtids").asText();
        t.awaitReplicaHas(stored, WAIT); // served what the store holds
        // An observation window, not a wait for anything: the upstream must stay waiting while the
        // store fails.
        Thread.sleep(2_000);
        assertThat(admin.status().path("upstream").path("state").asText())
            .isEqualTo("WAITING_FOR_STORE");
        assertThat(t.relay().unexpectedEnds()).as("the relay stayed up").isEmpty();

        disk.healWrites();
        long freed = System.nanoTime();
        t.relay().awaitInLog(Fault.RESUMED, 1, WAIT);
        long resumedAfter = (System.nanoTime() - freed) / 1_000_000;
        assertThat(t.relay().countInLog(CUT_BACK))
            .as("resumed by cutting back to the durable boundary")
            .isPositive();
        LOG.info(
            "IO ERROR: the store accepts writes again {} ms after the device was freed:\n{}",
            resumedAfter,
            String.join(
                "\n",
                Files.readAllLines(t.relay().current().log()).stream()
                    .filter(
                        l ->
                            l.contains("Resumption")
                                || l.contains("resum")
                                || l.contains("accepts writes again"))
                    .toList()));
        t.primary()
            .execute(
                "INSERT INTO " + FaultCampaign.MARKERS + " (fault) VALUES ('after the I/O error')");
        t.awaitReplicaHas(t.primary().executedGtidSet(), WAIT);
        assertThat(admin.metric("binlogrelay_store_accepting")).isEqualTo(1.0);
        load.finish(Duration.ofMinutes(1));
      }
      String end = t.primary().executedGtidSet();
      t.awaitReplicaHas(end, WAIT);
      assertThat(t.replica().executedGtidSet())
          .as("the replica's executed GTIDs vs the primary's")
          .isEqualTo(end);
      TableChecksums expected = TableChecksums.of(t.primary(), "sbtest", "campaign");
      assertThat(TableChecksums.of(t.replica(), "sbtest", "campaign"))
          .as("CHECKSUM TABLE, replica vs primary")
          .isEqualTo(expected);
      StoredBinlogs.awaitSameSizes(t.relayDataDir(), t.primary(), t.relay(), WAIT);
      assertThat(t.relay().stop()).as("the relay's exit status after SIGTERM").isZero();
      Map<String, Long> before = StoredBinlogs.sizes(t.relayDataDir());
      disk.remount(); // what the disk holds, not what the page cache still shows
      LOG.info(
          "IO ERROR: stored file sizes before remounting {}, after {}, on the primary {}",
          before,
          StoredBinlogs.sizes(t.relayDataDir()),
          StoredBinlogs.sizes(t.primary().binlogDir()));
      StoredBinlogs stored =
          StoredBinlogs.compare(t.relayDataDir(), t.primary(), t.crashEndedFiles());
      assertThat(stored.transactions()).isEqualTo(StoredBinlogs.transactionsOf(t.primary()));
      assertThat(t.relay().unexpectedEnds()).isEmpty();
      LOG.info(
          "IO ERROR: {} files ({} bytes) equal to the primary's after remounting, {} transactions",
          stored.files(),
          stored.bytes(),
          stored.transactions());

      readOnlyDiskIsRepairedAndTheRelayRecovers(t, disk);
    }
  }

  /**
   * The fault campaign's other end of an I/O error: the kernel turns the ext4 read-only (its
   * journal aborted on a failed metadata write, on 2026-11-29 in a CI run). The relay stays up and
   * serves what it has; the operator's repair (SIGKILL, e2fsck, mount, start: what {@link
   * Fault#IO_ERROR} does then) brings back a store equal to the primary's.
   */
  private static void readOnlyDiskIsRepairedAndTheRelayRecovers(
      CampaignTopology t, LoopExt4Disk disk) throws Exception {
    t.relay().start();
    t.relay().awaitInLog("streaming from", 1, WAIT);
    t.primary()
        .execute("INSERT INTO " + FaultCampaign.MARKERS + " (fault) VALUES ('before read-only')");
    t.awaitReplicaHas(t.primary().executedGtidSet(), WAIT); // through the restarted relay
    disk.turnReadOnly();
    // ext4 aborts the journal and remounts from its error work, a moment after the error.
    eventually(
        Duration.ofSeconds(30), "the ext4 read-only after its error", disk::readOnly, ro -> ro);
    long failed = t.relay().countInLog(Fault.IO_FAILED) + t.relay().countInLog(Fault.OUT_OF_SPACE);
    t.primary()
        .execute("INSERT INTO " + FaultCampaign.MARKERS + " (fault) VALUES ('read-only disk')");
    try {
      eventually(
          WAIT,
          "the relay's store failing on the read-only disk",
          () -> {
            t.relay().requireNoUnexpectedEnd();
            return t.relay().countInLog(Fault.IO_FAILED) + t.relay().countInLog(Fault.OUT_OF_SPACE);
          },
          n -> n > failed);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ":\n" + Tails.of(t.relay().current().log(), 60), e);
    }
    assertThat(t.relay().unexpectedEnds()).as("the relay stayed up").isEmpty();
    assertThat(t.relay().kill()).as("SIGKILL's exit status").isEqualTo(128 + 9);
    disk.repair();
    assertThat(disk.readOnly()).as("the ext4 after e2fsck and mount").isFalse();
    t.relay().start();
    t.primary()
        .execute("INSERT INTO " + FaultCampaign.MARKERS + " (fault) VALUES ('after the repair')");
    String end = t.primary().executedGtidSet();
    t.awaitReplicaHas(end, WAIT);
    StoredBinlogs.awaitSameSizes(t.relayDataDir(), t.primary(), t.relay(), WAIT);
    assertThat(t.relay().stop()).as("the relay's exit status after SIGTERM").isZero();
    disk.remount();
    StoredBinlogs stored =
        StoredBinlogs.compare(t.relayDataDir(), t.primary(), t.crashEndedFiles());
    assertThat(stored.transactions()).isEqualTo(StoredBinlogs.transactionsOf(t.primary()));
    assertThat(t.relay().unexpectedEnds()).isEmpty();
    LOG.info(
        "IO ERROR, read-only ext4: repaired; {} files ({} bytes) equal to the primary's, {}"
            + " transactions",
        stored.files(),
        stored.bytes(),
        stored.transactions());
  }

  /** Lines of the kernel log that report a failed write on the disk's loop device. */
  private static long kernelWriteErrors(LoopExt4Disk disk) {
    String name = disk.device().substring(disk.device().lastIndexOf('/') + 1);
    // counted in the shell: the whole kernel log would fill the pipe SystemCommand reads only at
    // the end
    String count =
        SystemCommand.run(
            "sh",
            "-c",
            "dmesg | grep -F '(device " + name + ")' | grep -c -F 'I/O error'" + " || true");
    return Long.parseLong(count.strip());
  }
}
