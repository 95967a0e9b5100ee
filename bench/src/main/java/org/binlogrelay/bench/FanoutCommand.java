package org.binlogrelay.bench;

import java.time.Duration;
import java.util.concurrent.Callable;
import org.binlogrelay.bench.stream.BinlogPosition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code fanout}: see {@link FanoutRun}. */
@Command(
    name = "fanout",
    mixinStandardHelpOptions = true,
    description =
        "N replica clients tail the source at once; report aggregate and per-client throughput, lag, "
            + "and the source's CPU and RSS.")
final class FanoutCommand implements Callable<Integer> {
  @ParentCommand BenchCommand parent;

  @Mixin SourceOptions source;

  @Mixin ClientOptions client;

  @Mixin OutputOptions output;

  @Option(
      names = {"-n", "--replicas"},
      defaultValue = "10",
      description = "Clients (default: ${DEFAULT-VALUE}).")
  int replicas;

  @Option(
      names = "--duration",
      defaultValue = "30",
      description = "Seconds (default: ${DEFAULT-VALUE}).")
  long durationSeconds;

  @Option(
      names = "--from",
      paramLabel = "FILE:POS",
      description = "Start here (default: the source's head).")
  String from;

  @Option(
      names = "--poll",
      defaultValue = "100",
      description = "Head poll period in ms, for lag and CPU samples (default: ${DEFAULT-VALUE}).")
  long pollMillis;

  @Option(
      names = "--warmup",
      defaultValue = "0",
      description =
          "Seconds the clients tail before the measurement starts, once all are connected and have"
              + " reached the head; nothing of them is counted (default: ${DEFAULT-VALUE}).")
  long warmupSeconds;

  @Option(
      names = "--reader-threads",
      paramLabel = "N",
      description =
          "Threads that read the clients' streams, each with a selector; 0 gives each client a"
              + " thread of its own, reading blocking, as relay-bench did before 2026-11-29 (default:"
              + " the processors).")
  Integer readerThreads;

  @Option(
      names = "--source-pid",
      description = "The source's pid on this machine, for its CPU and RSS.")
  Long sourcePid;

  @Override
  public Integer call() throws Exception {
    if (replicas < 1 || replicas > 10_000) {
      throw new IllegalArgumentException("--replicas must be 1..10000, got " + replicas);
    }
    if (warmupSeconds < 0 || warmupSeconds > 3600) {
      throw new IllegalArgumentException("--warmup must be 0..3600 seconds, got " + warmupSeconds);
    }
    int readers =
        readerThreads == null ? Runtime.getRuntime().availableProcessors() : readerThreads;
    if (readers < 0 || readers > 256) {
      throw new IllegalArgumentException("--reader-threads must be 0..256, got " + readers);
    }
    ClientSettings settings = client.settings(source, 64 * 1024);
    FanoutRun run =
        new FanoutRun(
            new FanoutRun.Settings(
                settings,
                replicas,
                from == null ? null : new StartPoint(BinlogPosition.parse(from), null),
                Duration.ofSeconds(durationSeconds),
                Duration.ofMillis(pollMillis),
                Duration.ofSeconds(warmupSeconds),
                sourcePid,
                readers));
    parent.publish(run.run(), output);
    return 0;
  }
}
