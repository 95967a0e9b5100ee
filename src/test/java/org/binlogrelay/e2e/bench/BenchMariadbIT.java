package org.binlogrelay.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * relay-bench {@code catchup} against a real MariaDB 10.11 primary: from a file position with
 * {@code --verify-dir} (every file byte-identical) and from a GTID position through
 * {@code @slave_connect_state} (the stream skips what the position covers, and what it sends is
 * still identical to the files).
 */
@ExtendWith(ServerFarmExtension.class)
class BenchMariadbIT {
  private static final Logger LOG = LoggerFactory.getLogger(BenchMariadbIT.class);

  @Test
  void catchupFromAFileAndFromAGtidPositionIsByteIdentical(ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MARIADB_10_11)
                .named("primary")
                .withMaxBinlogSize(8L << 20));
    Sysbench.against(primary).withTables(2).withTableSize(20_000).prepare();
    String middle = primary.queryValue("SELECT @@GLOBAL.gtid_binlog_pos");
    Sysbench.against(primary).withSchema("second").withTables(2).withTableSize(20_000).prepare();
    primary.execute("FLUSH BINARY LOGS");
    List<String> names =
        primary.queryRows("SHOW BINARY LOGS").stream().map(r -> r.get("Log_name")).toList();
    long backlog = 0;
    for (String name : names) {
      backlog += Files.size(primary.binlogDir().resolve(name)) - 4;
    }

    List<String> args = new ArrayList<>(BenchRuns.source(primary));
    args.add("--verify-dir=" + primary.binlogDir());
    Report whole = BenchRuns.run("catchup", args);
    assertThat(BenchRuns.number(whole, "verified_bytes")).isEqualTo(backlog);
    assertThat(BenchRuns.number(whole, "verified_whole_files")).isEqualTo(names.size());
    long seq =
        Long.parseLong(primary.queryValue("SELECT @@GLOBAL.gtid_binlog_pos").replaceAll(".*-", ""));
    assertThat(BenchRuns.number(whole, "transactions")).isEqualTo(seq);

    List<String> fromGtid = new ArrayList<>(BenchRuns.source(primary));
    fromGtid.addAll(List.of("--from-gtid=" + middle, "--verify-dir=" + primary.binlogDir()));
    Report half = BenchRuns.run("catchup", fromGtid);
    long middleSeq = Long.parseLong(middle.replaceAll(".*-", ""));
    assertThat(BenchRuns.number(half, "transactions")).isEqualTo(seq - middleSeq);
    assertThat(BenchRuns.number(half, "verified_bytes")).isPositive().isLessThan(backlog);
    LOG.info(
        "FIGURE MariaDB 10.11 catch-up of {} bytes with --verify-dir (TRIAL, shared noisy machine): {} MB/s,"
            + " {} transactions/s",
        backlog,
        whole.value("mb_per_s"),
        whole.value("transactions_per_s"));
  }
}
