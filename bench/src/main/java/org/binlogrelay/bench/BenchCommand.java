package org.binlogrelay.bench;

import java.io.IOException;
import org.binlogrelay.bench.report.Report;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code relay-bench} (to be mounted as {@code relayctl bench}): replication benchmarks against any
 * source that speaks the MySQL replication protocol, the relay or a MySQL/MariaDB server. Exit
 * codes: 0 done, 1 the run failed (message on stderr), 2 bad usage.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCommand.Version.class,
    description =
        "Replication benchmarks: replica clients against the relay or a MySQL/MariaDB source.",
    subcommands = {
      CatchupCommand.class,
      FanoutCommand.class,
      BenchLagCommand.class,
      StopCatchupCommand.class,
      LoopbackCommand.class,
      SyntheticCommand.class
    })
public final class BenchCommand implements Runnable {
  @Spec CommandSpec spec;

  private volatile Report report;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Prints the report as the output options say and keeps it for {@link #report()}. */
  void publish(Report finished, OutputOptions output) throws IOException {
    report = finished;
    output.write(finished, spec.commandLine().getOut());
  }

  /**
   * The report of the last run of a subcommand, for programs that mount this command; {@code null}
   * before.
   */
  public Report report() {
    return report;
  }

  /** A command line whose failures print one line ("relay-bench: message") and exit 1. */
  public static CommandLine commandLine() {
    return commandLine(new BenchCommand());
  }

  /**
   * {@link #commandLine()} around a given command object, to read its {@link #report()} afterwards.
   */
  public static CommandLine commandLine(BenchCommand command) {
    CommandLine line = new CommandLine(command);
    line.setExecutionExceptionHandler(
        (e, cmd, parse) -> {
          cmd.getErr().println("relay-bench: " + e.getMessage());
          if (Boolean.getBoolean("relaybench.trace")) {
            e.printStackTrace(cmd.getErr());
          }
          return 1;
        });
    return line;
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The jar's Implementation-Version. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = BenchCommand.class.getPackage().getImplementationVersion();
      return new String[] {"relay-bench " + (v == null ? "(development build)" : v)};
    }
  }
}
