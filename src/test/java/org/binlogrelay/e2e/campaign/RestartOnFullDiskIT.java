package org.binlogrelay.e2e.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Found by the fault campaign's topology, with two of its faults at once: the relay is SIGKILLed
 * (or restarted by its supervisor) while its data directory is full. It used to exit with status 1
 * at once ("cannot open the binlog store in DIR: No space left on device"): opening the store
 * rewrote the open file's metadata, which needs space.
 *
 * <p>Now: the relay SIGKILLed on the full disk (sysbench writing on the primary) starts again and
 * stays up, its store opened not accepting writes (status: DISK_FULL with the error, upstream
 * WAITING_FOR_STORE, {@code binlogrelay_store_accepting 0}); the replica is served everything the
 * store holds; a second SIGKILL while it waits is harmless; once space is freed the store resumes
 * by itself and carries the rest. At the end the stored files are the primary's byte for byte with
 * each GTID once, and the replica has the primary's exact GTID set.
 */
@ExtendWith(ServerFarmExtension.class)
class RestartOnFullDiskIT {
  private static final Duration WAIT = Duration.ofMinutes(2);

  @Test
  void relayStartedOnAFullDiskWaitsForSpace(ServerFarm farm, @TempDir Path dir) throws Exception {
    try (CampaignTopology t =
        CampaignTopology.start(farm, ServerVersion.MYSQL_9_7, dir, 256L << 20)) {
      FaultCampaign.createMarkers(t.primary());
      Sysbench sysbench = Sysbench.against(t.primary()).withRate(25);
      sysbench.prepare();
      CampaignAdminClient admin = new CampaignAdminClient(t);
      try (LoadDriver load = LoadDriver.start(sysbench, t.primary())) {
        t.disk().fill(8 << 10);
        t.relay().awaitInLog(Fault.OUT_OF_SPACE, 1, Duration.ofSeconds(60));
        t.relay().kill();

        t.relay().start();
        t.relay().awaitInLog("relay running", 1, WAIT);
        assertThat(t.relay().countInLog("store opened not accepting writes (DISK_FULL"))
            .isEqualTo(1);
        JsonNode store = admin.awaitWaitingForStore(WAIT);
        assertThat(store.get("condition").asText()).isEqualTo("DISK_FULL");
        assertThat(store.get("lastError").asText()).contains("No space left on device");
        assertThat(admin.metric("binlogrelay_store_accepting")).isEqualTo(0.0);
        String stored = store.get("executedGtids").asText();
        t.awaitReplicaHas(stored, WAIT); // served what the store holds
        assertThat(t.relay().unexpectedEnds())
            .as("the relay started on a full disk and stayed up")
            .isEmpty();

        t.relay().kill(); // while it waits: it wrote nothing
        t.relay().start();
        t.relay().awaitInLog("relay running", 1, WAIT);
        store = admin.awaitWaitingForStore(WAIT);
        assertThat(store.get("executedGtids").asText())
            .as("the same state after a SIGKILL while waiting")
            .isEqualTo(stored);

        t.disk().free();
        t.relay().awaitInLog(Fault.RESUMED, 1, WAIT);
        t.primary()
            .execute(
                "INSERT INTO " + FaultCampaign.MARKERS + " (fault) VALUES ('after the full disk')");
        t.awaitReplicaHas(t.primary().executedGtidSet(), WAIT);
        assertThat(admin.metric("binlogrelay_store_accepting")).isEqualTo(1.0);
        load.finish(Duration.ofMinutes(1));
      }
      String end = t.primary().executedGtidSet();
      t.awaitReplicaHas(end, WAIT);
      assertThat(t.replica().executedGtidSet())
          .as("the replica's executed GTIDs vs the primary's")
          .isEqualTo(end);
      StoredBinlogs.awaitSameSizes(t.relayDataDir(), t.primary(), t.relay(), WAIT);
      assertThat(t.relay().stop()).as("the relay's exit status after SIGTERM").isZero();
      StoredBinlogs stored =
          StoredBinlogs.compare(t.relayDataDir(), t.primary(), t.crashEndedFiles());
      assertThat(stored.transactions()).isEqualTo(StoredBinlogs.transactionsOf(t.primary()));
      assertThat(t.relay().unexpectedEnds()).isEmpty();
    }
  }
}
