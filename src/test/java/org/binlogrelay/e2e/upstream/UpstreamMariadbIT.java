package org.binlogrelay.e2e.upstream;

import java.nio.file.Path;
import java.time.Duration;

import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upstream replicator against a real MariaDB 10.11 primary (mysql_native_password): the store ends
 * byte-identical to the primary's binlog (ANNOTATE_ROWS, GTID_LIST and BINLOG_CHECKPOINT events included)
 * with the primary's {@code @@gtid_binlog_state} and {@code @@gtid_binlog_pos}.
 */
@ExtendWith(ServerFarmExtension.class)
class UpstreamMariadbIT {
    static final long MAX_BINLOG_SIZE = 2L << 20;

    static DatabaseServer primary(ServerFarm farm) {
        return farm.start(ServerSpec.of(ServerVersion.MARIADB_10_11).named("primary")
                .withMaxBinlogSize(MAX_BINLOG_SIZE));
    }

    @Test
    void followsWriteLoadByteForByteAndRegistersAsReplica(ServerFarm farm, @TempDir Path dir) throws Exception {
        UpstreamScenarios.followWriteLoad(primary(farm), dir, Duration.ofSeconds(15), 4);
    }

    @Test
    void survivesStopsRestartsAndKilledConnections(ServerFarm farm, @TempDir Path dir) throws Exception {
        UpstreamScenarios.survivesStopsRestartsAndKills(primary(farm), dir);
    }

    @Test
    void followsThePrimaryThroughARestart(ServerFarm farm, @TempDir Path dir) throws Exception {
        UpstreamScenarios.followsPrimaryRestarts(primary(farm), dir, false);
    }

    @Test
    void stopsWithError1236WhenThePrimaryPurgedWhatItNeeds(ServerFarm farm, @TempDir Path dir) throws Exception {
        UpstreamScenarios.stopsWhenThePrimaryPurgedWhatItNeeds(primary(farm), dir);
    }

    @Test
    void refusesAPrimaryWithItsOwnServerId(ServerFarm farm, @TempDir Path dir) throws Exception {
        UpstreamScenarios.refusesThePrimarysServerId(primary(farm), dir);
    }

    @Test
    void startsFromAGtidPositionOrTheCurrentFile(ServerFarm farm, @TempDir Path dir) throws Exception {
        DatabaseServer primary = primary(farm);
        primary.execute("CREATE DATABASE s", "CREATE TABLE s.t (id INT PRIMARY KEY)", "INSERT INTO s.t VALUES (1)");
        String firstFile = primary.queryValue("SELECT @@global.gtid_binlog_pos");
        primary.execute("FLUSH BINARY LOGS", "INSERT INTO s.t VALUES (2)", "FLUSH BINARY LOGS",
                "INSERT INTO s.t VALUES (3)");
        UpstreamScenarios.startsWhereConfigured(primary, dir, firstFile);
    }
}
