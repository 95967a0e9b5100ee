package org.binlogrelay.e2e.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;

import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Found by the fault campaign's topology, with two of its faults at once: the relay is SIGKILLed (or restarted by
 * its supervisor) while its data directory is full. A running relay waits out a full disk (WAITING_FOR_STORE) and
 * keeps serving; a relay that starts on a full disk exits with status 1 at once ("binlog-relay: cannot start: cannot
 * open the binlog store in DIR: No space left on device; ..."): {@code StoreRecovery.reopen} rewrites the open
 * file's metadata ({@code MetadataFile.write} -> {@code StoreDirectory.writeAtomically}, a temporary file and a
 * rename), which needs free space. Nothing is lost: once space is freed, a new start catches up.
 *
 * <p>What this test expects instead: the relay starts on the full disk, keeps running (serving what it has), and
 * once space is freed it resumes by itself and carries a new transaction to the replica.
 */
@ExtendWith(ServerFarmExtension.class)
class RestartOnFullDiskIT {

    @Test
    @Disabled("relay exits 1 when started on a full disk (StoreRecovery.reopen writes metadata); reported to the lead")
    void relayStartedOnAFullDiskWaitsForSpace(ServerFarm farm, @TempDir Path dir) throws Exception {
        try (CampaignTopology t = CampaignTopology.start(farm, ServerVersion.MYSQL_9_7, dir, 256L << 20)) {
            FaultCampaign.createMarkers(t.primary());
            Sysbench sysbench = Sysbench.against(t.primary()).withRate(25);
            sysbench.prepare();
            try (LoadDriver load = LoadDriver.start(sysbench, t.primary())) {
                t.disk().fill(8 << 10);
                t.relay().awaitInLog(Fault.OUT_OF_SPACE, 1, Duration.ofSeconds(60));
                t.relay().kill();
                t.relay().start();
                t.relay().awaitInLog("relay running", 1, Duration.ofMinutes(1));
                Thread.sleep(5_000);
                assertThat(t.relay().unexpectedEnds()).as("the relay started on a full disk and stayed up").isEmpty();
                t.disk().free();
                t.relay().awaitInLog(Fault.RESUMED, 1, Duration.ofMinutes(2));
                t.primary().execute("INSERT INTO " + FaultCampaign.MARKERS + " (fault) VALUES ('after the full disk')");
                t.awaitReplicaHas(t.primary().executedGtidSet(), Duration.ofMinutes(2));
                load.finish(Duration.ofMinutes(1));
            }
        }
    }
}
