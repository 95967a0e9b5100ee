package org.binlogrelay.bench;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.binlogrelay.bench.client.SourceAddress;
import org.binlogrelay.bench.synthetic.RecordedTransactions;
import org.binlogrelay.bench.synthetic.SyntheticPrimary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code synthetic}: see {@link SyntheticRun}. The source options name the relay the client reads
 * from; {@code --primary-*} the synthetic primary the relay follows.
 */
@Command(
    name = "synthetic",
    mixinStandardHelpOptions = true,
    description =
        "Relay-added latency at a controlled rate: a synthetic MySQL 9.7 primary (recorded transactions"
            + " replayed, real GTIDs) that the relay follows, and a replica client of the relay;"
            + " p50/p99/p99.9/max from the primary's write to the client's read.")
final class SyntheticCommand implements Callable<Integer> {
  @ParentCommand BenchCommand parent;

  @Mixin SourceOptions relay;

  @Mixin OutputOptions output;

  @Option(
      names = "--primary-port",
      defaultValue = "0",
      description =
          "Port of the synthetic primary on 127.0.0.1 (default: a free one, printed on stderr).")
  int primaryPort;

  @Option(
      names = "--primary-user",
      defaultValue = "repl",
      description = "The account the relay logs in with (default: ${DEFAULT-VALUE}).")
  String primaryUser;

  @Option(
      names = "--primary-password",
      defaultValue = "${env:RELAY_BENCH_PRIMARY_PASSWORD:-}",
      description =
          "Its password, mysql_native_password (default: $RELAY_BENCH_PRIMARY_PASSWORD, else none).")
  String primaryPassword;

  @Option(
      names = "--primary-server-id",
      defaultValue = "1",
      description = "The primary's server_id (default: ${DEFAULT-VALUE}).")
  long primaryServerId;

  @Option(
      names = "--primary-uuid",
      description = "The primary's server_uuid, the GTIDs' source (default: a random one).")
  UUID primaryUuid;

  @Option(
      names = "--max-binlog-size",
      defaultValue = "67108864",
      description =
          "Bytes after which the primary rotates to a new file (default: ${DEFAULT-VALUE}).")
  long maxBinlogSize;

  @Option(
      names = "--binlog",
      paramLabel = "FILE",
      description =
          "A MySQL binlog file (GTIDs, ROW, CRC32) whose row transactions are replayed (default: a built-in"
              + " MySQL 9.7 recording).")
  Path binlog;

  @Option(
      names = "--binlog-transactions",
      defaultValue = "100000",
      description =
          "At most this many transactions are taken from --binlog (default: ${DEFAULT-VALUE}).")
  int binlogTransactions;

  @Option(
      names = "--rate",
      defaultValue = "5000",
      description = "Transactions per second (default: ${DEFAULT-VALUE}).")
  int rate;

  @Option(
      names = "--duration",
      defaultValue = "30",
      description = "Measured seconds (default: ${DEFAULT-VALUE}).")
  long durationSeconds;

  @Option(
      names = "--warmup",
      defaultValue = "5",
      description =
          "Seconds at the rate before the measurement, not counted (default: ${DEFAULT-VALUE}).")
  long warmupSeconds;

  @Option(
      names = "--setup-timeout",
      defaultValue = "60",
      description =
          "Seconds to wait for the relay's dump, for the client's login to the relay, and for the last"
              + " transaction to reach the client (default: ${DEFAULT-VALUE}).")
  long setupSeconds;

  @Option(
      names = "--relay-pid",
      defaultValue = "0",
      description = "The relay's pid: its CPU is reported.")
  long relayPid;

  @Option(
      names = "--relay-pid-file",
      paramLabel = "FILE",
      description =
          "A file that will hold the relay's pid (read once the relay dumps): its CPU is reported.")
  Path relayPidFile;

  @Option(
      names = "--relay-metrics",
      paramLabel = "URL",
      description =
          "The relay's Prometheus endpoint: its own latency histogram over the run is reported too.")
  URI relayMetrics;

  @Option(
      names = "--label",
      description = "Added to the report's title (e.g. the relay's sync policy).")
  String label;

  @Override
  public Integer call() throws Exception {
    if (rate < 1 || rate > 1_000_000) {
      throw new IllegalArgumentException("--rate must be 1 to 1000000, got " + rate);
    }
    if (durationSeconds < 1 || warmupSeconds < 0) {
      throw new IllegalArgumentException("--duration must be at least 1 and --warmup at least 0");
    }
    if ((durationSeconds + warmupSeconds) * rate > 200_000_000L) {
      throw new IllegalArgumentException(
          "(--warmup + --duration) x --rate is limited to 200 million transactions");
    }
    if (maxBinlogSize < 4096) {
      throw new IllegalArgumentException("--max-binlog-size must be at least 4096");
    }
    RecordedTransactions recording =
        binlog == null
            ? RecordedTransactions.builtIn()
            : RecordedTransactions.load(binlog, binlogTransactions);
    SourceAddress relayAddress = relay.address();
    SyntheticRun run =
        new SyntheticRun(
            new SyntheticRun.Settings(
                new SyntheticPrimary.Settings(
                    primaryPort,
                    primaryUser,
                    primaryPassword,
                    primaryServerId,
                    primaryUuid == null ? UUID.randomUUID() : primaryUuid,
                    "binlog",
                    maxBinlogSize),
                recording,
                relayAddress,
                rate,
                Duration.ofSeconds(warmupSeconds),
                Duration.ofSeconds(durationSeconds),
                Duration.ofSeconds(setupSeconds),
                relayPid,
                relayPidFile,
                relayMetrics,
                label),
            System.err); // progress lines: the benchmark script waits for "listening on"
    parent.publish(run.run(), output);
    return 0;
  }
}
