package org.binlogrelay.bench;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code relay-bench} (to be mounted as {@code relayctl bench}): replication benchmarks against any source that
 * speaks the MySQL replication protocol, the relay or a MySQL/MariaDB server. Exit codes: 0 done, 1 the run failed
 * (message on stderr), 2 bad usage.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = BenchCommand.Version.class,
    description = "Replication benchmarks: replica clients against the relay or a MySQL/MariaDB source.",
    subcommands = {CatchupCommand.class, FanoutCommand.class, LagCommand.class, StopCatchupCommand.class})
public final class BenchCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** A command line whose failures print one line ("relay-bench: message") and exit 1. */
  public static CommandLine commandLine() {
    CommandLine line = new CommandLine(new BenchCommand());
    line.setExecutionExceptionHandler((e, cmd, parse) -> {
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
