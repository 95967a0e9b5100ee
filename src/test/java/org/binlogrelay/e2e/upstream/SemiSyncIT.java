package org.binlogrelay.e2e.upstream;

import java.nio.file.Path;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Semi-synchronous replication to the relay against MySQL 9.7 (the {@code rpl_semi_sync_source}
 * plugin) and MariaDB 10.11 and 11.8 (built in): acknowledgements only after the store's fsync,
 * fallback when the relay is gone, and no acknowledged commit lost when the primary is SIGKILLed.
 */
@ExtendWith(ServerFarmExtension.class)
class SemiSyncIT {

  @Test
  void mysqlCommitsWaitForTheRelaysFsync(ServerFarm farm, @TempDir Path dir) throws Exception {
    SemiSyncScenarios.acknowledgesDurableCommits(
        farm.start(ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary")), dir);
  }

  @MariadbSeriesTest
  void mariadbCommitsWaitForTheRelaysFsync(
      ServerVersion version, ServerFarm farm, @TempDir Path dir) throws Exception {
    SemiSyncScenarios.acknowledgesDurableCommits(
        farm.start(ServerSpec.of(version).named("primary")), dir);
  }
}
