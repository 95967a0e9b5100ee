package org.binlogrelay.bench;

import java.time.Duration;
import java.util.concurrent.Callable;
import org.binlogrelay.bench.client.SourceAddress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code stop-catchup}: see {@link StopCatchupRun}. The source options name the primary. */
@Command(
    name = "stop-catchup",
    mixinStandardHelpOptions = true,
    description =
        "Stop a replica for T seconds (under load from elsewhere), start it, and time until it has "
            + "executed what the primary had.")
final class StopCatchupCommand implements Callable<Integer> {
  @ParentCommand BenchCommand parent;

  @Mixin SourceOptions primary;

  @Mixin ReplicaOptions replica;

  @Mixin OutputOptions output;

  @Option(
      names = "--stop",
      defaultValue = "30",
      description = "Seconds the replica stays stopped (default: " + "${DEFAULT-VALUE}).")
  long stopSeconds;

  @Option(
      names = "--poll",
      defaultValue = "50",
      description = "Replica poll period in ms (default: ${DEFAULT-VALUE}).")
  long pollMillis;

  @Option(
      names = "--give-up-after",
      paramLabel = "SECONDS",
      defaultValue = "3600",
      description = "Give up after this many seconds of catch-up " + "(default: ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Override
  public Integer call() throws Exception {
    SourceAddress p = primary.address();
    StopCatchupRun run =
        new StopCatchupRun(
            new StopCatchupRun.Settings(
                p,
                replica.address(p),
                Duration.ofSeconds(stopSeconds),
                Duration.ofMillis(pollMillis),
                Duration.ofSeconds(timeoutSeconds),
                Duration.ofSeconds(10)));
    parent.publish(run.run(), output);
    return 0;
  }
}
