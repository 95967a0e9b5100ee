package org.binlogrelay.e2e.upstream;

import java.nio.file.Path;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Switching the relay's source at runtime to a promoted replica (MySQL 9.7, MariaDB 10.11 and
 * 11.8): no gap, no duplicate, the primary's files kept byte for byte, the new source's
 * transactions in files of the relay's naming; a server lacking stored transactions refused.
 */
@ExtendWith(ServerFarmExtension.class)
class SourceSwitchIT {

  @Test
  void mysqlSwitchesToAPromotedReplica(ServerFarm farm, @TempDir Path dir) throws Exception {
    SourceSwitchScenarios.switchesToAPromotedReplica(farm, ServerVersion.MYSQL_9_7, dir);
  }

  @MariadbSeriesTest
  void mariadbSwitchesToAPromotedReplica(ServerVersion version, ServerFarm farm, @TempDir Path dir)
      throws Exception {
    SourceSwitchScenarios.switchesToAPromotedReplica(farm, version, dir);
  }
}
