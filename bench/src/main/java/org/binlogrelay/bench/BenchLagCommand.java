package org.binlogrelay.bench;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.binlogrelay.bench.client.SourceAddress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code lag}: see {@link LagRun}. The source options name the primary; {@code --replica-*} the
 * replica.
 */
@Command(
    name = "lag",
    mixinStandardHelpOptions = true,
    description =
        "End-to-end lag primary -> (relay ->) replica, pt-heartbeat style: a row written on the primary "
            + "every interval, read on the replica; p50/p95/p99/max.")
final class BenchLagCommand implements Callable<Integer> {
  @ParentCommand BenchCommand parent;

  @Mixin SourceOptions primary;

  @Mixin ReplicaOptions replica;

  @Mixin OutputOptions output;

  @Option(
      names = "--duration",
      defaultValue = "30",
      description = "Seconds (default: ${DEFAULT-VALUE}).")
  long durationSeconds;

  @Option(
      names = "--interval",
      defaultValue = "100",
      description = "Heartbeat write period in ms (default: " + "${DEFAULT-VALUE}).")
  long intervalMillis;

  @Option(
      names = "--poll",
      defaultValue = "2",
      description = "Replica poll period in ms (default: ${DEFAULT-VALUE}).")
  long pollMillis;

  @Option(
      names = "--setup-timeout",
      defaultValue = "60",
      description =
          "Seconds to wait for the heartbeat table on the replica, and for the last heartbeat (default: "
              + "${DEFAULT-VALUE}).")
  long setupSeconds;

  @Option(
      names = "--relay-metrics",
      paramLabel = "URL",
      description =
          "The relay's Prometheus endpoint (e.g. "
              + "http://127.0.0.1:9307/metrics) when the replica follows a relay: its own lag figures are reported too.")
  URI relayMetrics;

  @Override
  public Integer call() throws Exception {
    SourceAddress p = primary.address();
    LagRun run =
        new LagRun(
            new LagRun.Settings(
                p,
                replica.address(p),
                Duration.ofSeconds(durationSeconds),
                Duration.ofMillis(intervalMillis),
                Duration.ofMillis(pollMillis),
                Duration.ofSeconds(10),
                Duration.ofSeconds(setupSeconds),
                relayMetrics));
    parent.publish(run.run(), output);
    return 0;
  }
}
