package org.binlogrelay.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.storage.BinlogTool;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.RelayMain;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.FileVerification;
import org.binlogrelay.storage.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relay-bench synthetic} against the real relay (a child JVM of {@link RelayMain}, fsync per
 * transaction, its default): the synthetic primary serves 1,000 transactions at 500 trx/s with a
 * small {@code --max-binlog-size} so that it rotates several times; the relay-bench client of the
 * relay must have received every transaction exactly once, in order, and the relay's stored files
 * must be consistent: each verifies (sizes, CRC32 of every event, log_pos continuity), they hold
 * 1,000 transactions, the store's GTIDs are {@code uuid:1-1000}, and MySQL 9.7's own {@code
 * mysqlbinlog --verify-binlog-checksum} reads every file and prints the GTIDs in order without
 * gaps. No timing is asserted: the latency figures are only checked to exist.
 */
class SyntheticPrimaryIT {
  private static final UUID SOURCE = UUID.fromString("5e7a0000-0000-4000-8000-000000000019");
  private static final String PRIMARY_PASSWORD = "synthetic-pass";
  private static final String RELAY_PASSWORD = "bench-pass";
  private static final int RATE = 500;
  private static final int TRANSACTIONS = RATE * 2; // 1 s warm-up + 1 s measured

  @TempDir Path dir;

  @Test
  void theRelayStoresAndForwardsEverySyntheticTransactionOnce() throws Exception {
    int primaryPort = freePort();
    int relayPort = freePort();
    int adminPort = freePort();
    Path accounts =
        Files.writeString(
            dir.resolve("accounts"),
            "repl@% REPLICATION_SLAVE,REPLICATION_CLIENT "
                + NativePasswordHash.of(RELAY_PASSWORD).storedForm()
                + "\n");
    Path passwordFile = Files.writeString(dir.resolve("primary-password"), PRIMARY_PASSWORD + "\n");
    Path pidFile = dir.resolve("relay.pid");
    CompletableFuture<Report> bench =
        CompletableFuture.supplyAsync(
            () ->
                BenchRuns.run(
                    "synthetic",
                    List.of(
                        "--primary-port=" + primaryPort,
                        "--primary-password=" + PRIMARY_PASSWORD,
                        "--primary-uuid=" + SOURCE,
                        "--max-binlog-size=65536",
                        "--port=" + relayPort,
                        "--user=repl",
                        "--password=" + RELAY_PASSWORD,
                        "--rate=" + RATE,
                        "--warmup=1",
                        "--duration=1",
                        "--setup-timeout=90",
                        "--relay-pid-file=" + pidFile,
                        "--relay-metrics=http://127.0.0.1:" + adminPort + "/metrics")));
    eventually(
        Duration.ofSeconds(30),
        () -> {
          try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), primaryPort), 1000);
          }
        });
    Path data = dir.resolve("relay-data");
    Process relay = startRelay(primaryPort, relayPort, adminPort, passwordFile, accounts, data);
    Report report;
    try {
      Files.writeString(pidFile, Long.toString(relay.pid()));
      report = bench.get(150, TimeUnit.SECONDS);
    } finally {
      relay.destroy();
      if (!relay.waitFor(60, TimeUnit.SECONDS)) {
        ChildProcesses.kill(relay);
      }
    }

    assertThat(report.value("every_transaction_once")).isEqualTo(true);
    assertThat(BenchRuns.number(report, "transactions_received")).isEqualTo(TRANSACTIONS);
    assertThat(BenchRuns.number(report, "missing")).isZero();
    assertThat(BenchRuns.number(report, "duplicates")).isZero();
    assertThat(BenchRuns.number(report, "out_of_order")).isZero();
    assertThat(report.value("latency_p99_ms")).isInstanceOf(Number.class);
    assertThat(report.value("relay_cpu_percent")).isInstanceOf(Number.class);

    long transactions = 0;
    List<String> files = new ArrayList<>();
    try (BinlogStore store =
        BinlogStore.open(StoreConfig.builder(data, GtidFlavor.MYSQL).build())) {
      for (FileMetadata f : store.files()) {
        FileVerification v = store.verify(f.name());
        assertThat(v.problem()).as("verification of stored " + f.name()).isNull();
        assertThat(v.ok()).as(f.name() + " verified to its end").isTrue();
        transactions += v.transactions();
        files.add(f.name());
      }
      assertThat(store.executedGtids())
          .isEqualTo(MysqlGtidSet.parse(SOURCE + ":1-" + TRANSACTIONS));
    }
    assertThat(transactions).isEqualTo(TRANSACTIONS);
    assertThat(files).as("the primary rotated at 64 KiB").hasSizeGreaterThan(2);

    long expected = 1;
    for (String f : files) {
      BinlogTool.Dump dump = BinlogTool.MYSQLBINLOG.read(data.resolve(f));
      assertThat(dump.exitCode()).as("mysqlbinlog on " + f + ": " + dump.output()).isZero();
      for (String gtid : dump.gtids()) {
        assertThat(gtid).isEqualTo(SOURCE + ":" + expected);
        expected++;
      }
    }
    assertThat(expected - 1).as("GTIDs mysqlbinlog printed").isEqualTo(TRANSACTIONS);
  }

  private Process startRelay(
      int primaryPort, int relayPort, int adminPort, Path passwordFile, Path accounts, Path data)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command =
        List.of(
            java,
            "-Xmx256m",
            "-Dlogback.configurationFile=logback.xml",
            "-cp",
            classpath,
            RelayMain.class.getName(),
            "--primary",
            "127.0.0.1:" + primaryPort,
            "--primary-user",
            "repl",
            "--primary-password-file",
            passwordFile.toString(),
            "--server-id",
            "100",
            "--data-dir",
            data.toString(),
            "--accounts-file",
            accounts.toString(),
            "--port",
            Integer.toString(relayPort),
            "--admin-port",
            Integer.toString(adminPort));
    return ChildProcesses.start(command, dir, dir.resolve("relay.log"), null);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
