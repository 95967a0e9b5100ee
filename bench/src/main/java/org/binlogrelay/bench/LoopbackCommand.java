package org.binlogrelay.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code loopback} (hidden): see {@link LoopbackRun}. Used by scripts/benchmark-replication.sh for
 * the physical limit next to the catch-up figures; it speaks no MySQL protocol, hence hidden from
 * the usage.
 */
@Command(
    name = "loopback",
    hidden = true,
    mixinStandardHelpOptions = true,
    description =
        "Send FILES over a plain loopback socket with transferTo and time it: the physical limit of a "
            + "catch-up of the same bytes.")
final class LoopbackCommand implements Callable<Integer> {
  @ParentCommand BenchCommand parent;

  @Mixin OutputOptions output;

  @Parameters(arity = "1..*", paramLabel = "FILE", description = "Files to send, in order.")
  List<Path> files;

  @Option(
      names = "--buffer",
      defaultValue = "1048576",
      description = "Receiver's read buffer in bytes (default: ${DEFAULT-VALUE}, as catchup's).")
  int buffer;

  @Override
  public Integer call() throws Exception {
    if (buffer < 4096 || buffer > (1 << 30)) {
      throw new IllegalArgumentException("--buffer must be 4096..1073741824, got " + buffer);
    }
    parent.publish(new LoopbackRun(new LoopbackRun.Settings(files, buffer)).run(), output);
    return 0;
  }
}
