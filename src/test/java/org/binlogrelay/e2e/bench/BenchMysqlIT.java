package org.binlogrelay.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.servers.Topology;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * relay-bench against a real MySQL 9.7 primary: {@code catchup --verify-dir} on a backlog of a few
 * tens of MB is byte-identical to the primary's files, and its throughput is logged next to {@code
 * mysqlbinlog --read-from-remote-server --raw} on the same backlog; {@code fanout --replicas 10}
 * under light sysbench load; {@code lag} and {@code stop-catchup} with a real replica. Figures are
 * logged ("FIGURE"), never asserted.
 */
@ExtendWith(ServerFarmExtension.class)
class BenchMysqlIT {
  private static final Logger LOG = LoggerFactory.getLogger(BenchMysqlIT.class);

  @Test
  void catchupIsByteIdenticalToThePrimarysFilesAndIsTimedNextToMysqlbinlog(ServerFarm farm)
      throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(8L << 20));
    Sysbench.against(primary).withTables(4).withTableSize(50_000).prepare();
    primary.execute("FLUSH BINARY LOGS");
    List<String> names =
        primary.queryRows("SHOW BINARY LOGS").stream().map(r -> r.get("Log_name")).toList();
    long backlog = 0;
    for (String name : names) {
      backlog += Files.size(primary.binlogDir().resolve(name)) - 4;
    }
    LOG.info("backlog: {} bytes in {} files", backlog, names.size());
    assertThat(backlog).isGreaterThan(20L << 20);

    List<String> args = new ArrayList<>(BenchRuns.source(primary));
    args.add("--verify-dir=" + primary.binlogDir());
    Report verified = BenchRuns.run("catchup", args);
    assertThat(BenchRuns.number(verified, "verified_bytes")).isEqualTo(backlog);
    assertThat(BenchRuns.number(verified, "verified_whole_files")).isEqualTo(names.size());
    assertThat(BenchRuns.number(verified, "event_bytes")).isGreaterThanOrEqualTo(backlog);
    assertThat(BenchRuns.number(verified, "transactions")).isEqualTo(transactions(primary));
    assertThat(verified.value("end").toString()).startsWith("reached");

    List<String> fast = new ArrayList<>(BenchRuns.source(primary));
    fast.add("--non-blocking");
    Report bench = BenchRuns.run("catchup", fast);
    assertThat(bench.value("end")).isEqualTo("EOF");
    assertThat(BenchRuns.number(bench, "event_bytes")).isGreaterThanOrEqualTo(backlog);

    Path root = mysqlRoot();
    String inRoot = "/tmp/relay-bench-mysqlbinlog-" + System.nanoTime();
    Path out = root.resolve(inRoot.substring(1));
    Files.createDirectories(out);
    try {
      CommandResult copy =
          ChildProcesses.run(
                  List.of(
                      Provisioning.executable("chroot", "chroot (coreutils)").toString(),
                      root.toString(),
                      "mysqlbinlog",
                      "--no-defaults",
                      "--protocol=TCP",
                      "--host=127.0.0.1",
                      "--port=" + primary.address().port(),
                      "--user=repl",
                      "--password=repl-pass",
                      "--read-from-remote-server",
                      "--raw",
                      "--to-last-log",
                      "--result-file=" + inRoot + "/",
                      names.get(0)),
                  out,
                  out.resolve("mysqlbinlog.out"),
                  null,
                  Duration.ofMinutes(2))
              .requireSuccess("mysqlbinlog --raw from the primary");
      for (String name : names) {
        byte[] original = Files.readAllBytes(primary.binlogDir().resolve(name));
        byte[] copied = Files.readAllBytes(out.resolve(name));
        original[21] &= (byte) ~1;
        assertThat(Arrays.mismatch(copied, original))
            .as(name + " copied by mysqlbinlog")
            .isEqualTo(-1);
      }
      double mysqlbinlogSeconds = copy.elapsed().toNanos() / 1e9;
      LOG.info(
          "FIGURE catch-up of {} bytes (TRIAL, shared noisy machine): relay-bench {} MB/s ({} s,"
              + " non-blocking, CRC checked), relay-bench with --verify-dir {} MB/s, mysqlbinlog --raw {}"
              + " MB/s ({} s, process start and file writes included)",
          backlog,
          String.format("%.1f", BenchRuns.decimal(bench, "mb_per_s")),
          String.format("%.3f", BenchRuns.decimal(bench, "seconds")),
          String.format("%.1f", BenchRuns.decimal(verified, "mb_per_s")),
          String.format("%.1f", backlog / 1e6 / mysqlbinlogSeconds),
          String.format("%.3f", mysqlbinlogSeconds));
    } finally {
      try (Stream<Path> files = Files.list(out)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(out);
    }
  }

  /** Read by 2 threads with selectors (the default on this machine), and by a thread each. */
  @ParameterizedTest(name = "--reader-threads={0}")
  @ValueSource(ints = {2, 0})
  void fanoutOfTenClientsFollowsALightLoad(int readerThreads, ServerFarm farm) throws Exception {
    DatabaseServer primary = farm.start(ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary"));
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(1_000).withRate(50);
    load.prepare();
    CompletableFuture<?> running =
        CompletableFuture.runAsync(() -> load.run(Duration.ofSeconds(9)));
    try {
      List<String> args = new ArrayList<>(BenchRuns.source(primary));
      args.addAll(
          List.of(
              "--replicas=10",
              "--duration=5",
              "--poll=100",
              "--reader-threads=" + readerThreads,
              "--source-pid=" + BenchRuns.pid(primary)));
      Report report = BenchRuns.run("fanout", args);
      Report.Table clients = report.tables().get(0);
      assertThat(clients.rows())
          .hasSize(10)
          .allSatisfy(
              row -> {
                assertThat(((Number) row.get(1)).longValue())
                    .as("bytes of client " + row.get(0))
                    .isPositive();
                assertThat(((Number) row.get(4)).longValue())
                    .as("transactions of client " + row.get(0))
                    .isPositive();
                assertThat(((Number) row.get(5)).longValue())
                    .as("lag samples of client " + row.get(0))
                    .isPositive();
              });
      assertThat(BenchRuns.decimal(report, "source_rss_max_bytes")).isPositive();
      assertThat(BenchRuns.number(report, "heads_not_reached")).isZero();
      LOG.info(
          "FIGURE fanout 10 clients, --reader-threads={}, sysbench 50 trx/s (TRIAL, shared noisy"
              + " machine): {} MB/s aggregate, lag p50 {} ms p99 {} ms, source CPU mean {}%",
          readerThreads,
          report.value("mb_per_s"),
          report.value("lag_p50_ms"),
          report.value("lag_p99_ms"),
          report.value("source_cpu_mean_percent"));
    } finally {
      running.get();
    }
  }

  @Test
  void lagAndStopCatchupWithARealReplica(ServerFarm farm) throws Exception {
    Topology topology = farm.startPrimaryWithReplicas(ServerVersion.MYSQL_9_7, 1);
    DatabaseServer primary = topology.primary();
    DatabaseServer replica = topology.replicas().get(0);
    Sysbench load = Sysbench.against(primary).withTables(2).withTableSize(1_000).withRate(100);
    load.prepare();
    CompletableFuture<?> running =
        CompletableFuture.runAsync(() -> load.run(Duration.ofSeconds(20)));
    try {
      List<String> lagArgs = new ArrayList<>(BenchRuns.admin(primary, replica));
      lagArgs.addAll(List.of("--duration=5", "--interval=100", "--poll=2"));
      Report lag = BenchRuns.run("lag", lagArgs);
      assertThat(lag.value("caught_up")).isEqualTo(true);
      assertThat(BenchRuns.number(lag, "samples")).isGreaterThan(10);
      assertThat(BenchRuns.decimal(lag, "lag_max_ms"))
          .isGreaterThanOrEqualTo(BenchRuns.decimal(lag, "lag_p50_ms"));

      List<String> stopArgs = new ArrayList<>(BenchRuns.admin(primary, replica));
      stopArgs.addAll(List.of("--stop=3", "--poll=50", "--give-up-after=60"));
      Report stop = BenchRuns.run("stop-catchup", stopArgs);
      assertThat(BenchRuns.number(stop, "backlog_transactions")).isPositive();
      assertThat(BenchRuns.number(stop, "missing_at_start"))
          .isGreaterThanOrEqualTo(BenchRuns.number(stop, "backlog_transactions"));
      LOG.info(
          "FIGURE lag primary -> replica, sysbench 100 trx/s (TRIAL, shared noisy machine): p50 {} ms, p99 {}"
              + " ms, max {} ms; stop-catchup 3 s: {} transactions in {} s",
          lag.value("lag_p50_ms"),
          lag.value("lag_p99_ms"),
          lag.value("lag_max_ms"),
          stop.value("missing_at_start"),
          stop.value("catchup_seconds"));
    } finally {
      running.get();
    }
    topology.awaitCaughtUp(Duration.ofMinutes(1));
  }

  /** GTIDs the primary executed: one GTID event each in its binlogs. */
  private static long transactions(DatabaseServer primary) {
    String set = primary.executedGtidSet();
    return MysqlGtidSet.parse(set).size().longValueExact();
  }

  static Path mysqlRoot() {
    String cache = System.getenv("BINLOG_RELAY_CACHE");
    Path base =
        cache != null && !cache.isBlank()
            ? Path.of(cache)
            : Path.of(System.getProperty("user.home"), ".cache", "binlog-relay");
    return base.resolve("mysql-sid-root");
  }
}
