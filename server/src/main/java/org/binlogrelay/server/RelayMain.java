package org.binlogrelay.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Entry point of the relay process: {@code binlog-relay [OPTIONS]}. Parses the options ({@link RelayOptions}, with
 * defaults from {@code --config FILE}, see {@link ConfigFile}) into a {@link RelayConfig} and hands it to a {@link
 * Launcher}, by default {@link RelayProcess}, which runs a {@link Relay} until SIGTERM or SIGINT.
 *
 * <p>Exit status: {@value #OK} after a clean stop, {@value #FAILED} when the relay could not start or stop cleanly,
 * {@value #USAGE} for a usage error (an unknown option, a value that does not parse, a missing required option,
 * an unreadable file named by an option): one line saying what is wrong, never a stack trace.
 */
@Command(
    name = "binlog-relay",
    mixinStandardHelpOptions = true,
    versionProvider = RelayMain.Version.class,
    sortOptions = false,
    usageHelpWidth = 100,
    customSynopsis = {
      "binlog-relay --primary HOST[:PORT] --primary-user USER --server-id ID [OPTIONS]",
      "       binlog-relay --config FILE [OPTIONS]",
      "       binlog-relay --server-id ID [--flavor mysql|mariadb] [OPTIONS]   (serve stored binlogs only)"
    },
    synopsisHeading = "Usage: ",
    optionListHeading = "Options:%n",
    description = {
      "An intermediate master for MySQL and MariaDB: replicates the primary's binlogs, stores them",
      "byte-identical and durable, and serves them to many downstream replicas.",
      ""
    },
    footer = {
      "",
      "Environment:",
      "  " + RelayOptions.PASSWORD_ENV + "  the primary's password (or --primary-password-file).",
      "",
      "Examples:",
      "  Follow a primary and serve replicas on 127.0.0.1:3307:",
      "    " + RelayOptions.PASSWORD_ENV + "=... binlog-relay --primary db1:3306 --primary-user repl \\",
      "        --server-id 9001 --data-dir /var/lib/binlog-relay --accounts-file /etc/binlog-relay/accounts",
      "  The same from a configuration file (keys: long option names without '--'):",
      "    binlog-relay --config /etc/binlog-relay/relay.properties",
      "  A password hash for the accounts file (the password is read from stdin):",
      "    java -cp binlog-relay.jar org.binlogrelay.protocol.auth.PasswordHashes",
      "  A local demo: a throwaway MariaDB primary with a write load, and the relay:",
      "    scripts/run",
      "",
      "Exit status: 0 after a clean stop (SIGTERM, SIGINT), 1 if the relay failed, 2 for a usage error.",
      "See docs/running.md."
    })
public final class RelayMain implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(RelayMain.class);
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;

  /** What runs the relay once its configuration is known. */
  @FunctionalInterface
  public interface Launcher {
    /**
     * Runs the relay; returns the exit status.
     *
     * @throws RelayStartException if it could not start (printed in one line, exit status 1)
     */
    int run(RelayConfig config) throws RelayStartException, InterruptedException;
  }

  @Spec
  CommandSpec spec;

  @Mixin
  RelayOptions options;

  @Option(names = "--config", paramLabel = "FILE", order = 1,
      description = "Properties file with defaults for these options; the command line wins.")
  Path configFile;

  private final Map<String, String> environment;
  private final Launcher launcher;

  RelayMain(Map<String, String> environment, Launcher launcher) {
    this.environment = Objects.requireNonNull(environment, "environment");
    this.launcher = Objects.requireNonNull(launcher, "launcher");
  }

  @Override
  public Integer call() throws RelayStartException, InterruptedException {
    List<String> warnings = new ArrayList<>();
    RelayConfig config;
    try {
      config = options.toConfig(environment, warnings);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    for (String warning : warnings) {
      log.warn(warning);
    }
    if (passwordOnCommandLine(spec.commandLine().getParseResult().originalArgs())) {
      log.warn("--primary-password with a value: other users of this host can read it in ps; prefer"
          + " --primary-password-file or ${}", RelayOptions.PASSWORD_ENV);
    }
    return launcher.run(config);
  }

  /** Whether {@code args} carry the password itself (rather than asking for the prompt). */
  static boolean passwordOnCommandLine(List<String> args) {
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i).startsWith("--primary-password=")) {
        return true;
      }
      if (args.get(i).equals("--primary-password") && i + 1 < args.size() && !args.get(i + 1).startsWith("-")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Parses {@code args} and runs the relay with {@code launcher}.
   *
   * @return the exit status
   */
  public static int execute(String[] args, Map<String, String> environment, Launcher launcher, PrintWriter out,
      PrintWriter err) {
    CommandLine commandLine = new CommandLine(new RelayMain(environment, launcher));
    commandLine.setOut(out);
    commandLine.setErr(err);
    commandLine.setParameterExceptionHandler(RelayMain::usageError);
    commandLine.setExecutionExceptionHandler((e, cmd, parseResult) -> failure(e, cmd.getErr()));
    try {
      ConfigFile.named(args).ifPresent(path -> {
        ConfigFile file = ConfigFile.read(path);
        file.check(commandLine.getCommandSpec());
        commandLine.setDefaultValueProvider(file);
      });
    } catch (IllegalArgumentException e) {
      err.println("binlog-relay: " + e.getMessage());
      err.println("Run 'binlog-relay --help' for the options.");
      err.flush();
      return USAGE;
    }
    int status = commandLine.execute(args);
    out.flush();
    err.flush();
    return status;
  }

  private static int usageError(ParameterException e, String[] args) {
    PrintWriter err = e.getCommandLine().getErr();
    err.println("binlog-relay: " + e.getMessage());
    CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
    err.println("Run 'binlog-relay --help' for the options.");
    err.flush();
    return USAGE;
  }

  private static int failure(Exception e, PrintWriter err) {
    if (e instanceof RelayStartException) {
      err.println("binlog-relay: cannot start: " + e.getMessage());
    } else {
      err.println("binlog-relay: failed: " + e);
      e.printStackTrace(err);
    }
    err.flush();
    return FAILED;
  }

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    System.exit(execute(args, System.getenv(), new RelayProcess(), out, err));
  }

  /** Reads the version Maven wrote into the jar. */
  static final class Version implements CommandLine.IVersionProvider {
    static String projectVersion() {
      Properties p = new Properties();
      try (InputStream in = RelayMain.class.getResourceAsStream("/binlog-relay-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return p.getProperty("version", "unknown");
    }

    @Override
    public String[] getVersion() {
      return new String[] {"binlog-relay " + projectVersion(), "Java " + Runtime.version()};
    }
  }
}
