package org.binlogrelay.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.binlogrelay.bench.BenchCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * {@code relayctl}: administers a running binlog-relay through its admin HTTP API ({@code
 * docs/admin-api.md}), and nothing else: this module never links against the server's code.
 *
 * <p>The global options ({@code --url}, {@code --token-file}, {@code --timeout}) are inherited by
 * every subcommand, so they may come before or after it. Exit codes: {@link #OK}, {@link
 * #RELAY_ERROR}, {@link #USAGE}, {@link #UNREACHABLE}, {@link #UNAUTHORIZED}.
 *
 * <p>One instance runs one command line; not thread-safe.
 */
@Command(
    name = "relayctl",
    scope = ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = Relayctl.Version.class,
    description = "Administers a running binlog-relay through its admin HTTP API.",
    subcommands = {
      StatusCommand.class,
      ReplicasCommand.class,
      BinlogsCommand.class,
      ArchiveCommand.class,
      GtidCommand.class,
      PurgeCommand.class,
      RotateCommand.class,
      SourceCommand.class,
      ReplicaCommand.class,
      LagCommand.class,
      PitrCommand.class,
      BenchCommand.class,
      CompletionCommand.class,
      CommandLine.HelpCommand.class,
    },
    footer = {
      "",
      "Environment:",
      "  RELAYCTL_URL     the relay's admin URL (instead of --url)",
      "  RELAYCTL_TOKEN   the bearer token (instead of --token-file)",
      "",
      "Exit codes:",
      "  0  ok",
      "  1  the relay answered with an error (its message is printed)",
      "  2  usage error",
      "  3  the relay could not be reached (connection refused, timeout)",
      "  4  unauthorized (no token, or the relay refused it)",
      "",
      "Examples:",
      "  relayctl status",
      "  relayctl lag --watch",
      "  relayctl --url http://relay1:9307 --token-file /etc/binlog-relay/admin-token replicas",
      "  relayctl binlogs --json | jq -r '.[].name'",
      "  source <(relayctl completion bash)"
    })
public final class Relayctl implements Runnable {
  public static final int OK = 0;
  public static final int RELAY_ERROR = 1;
  public static final int USAGE = 2;
  public static final int UNREACHABLE = 3;
  public static final int UNAUTHORIZED = 4;

  static final String DEFAULT_URL = "http://127.0.0.1:9307";

  @Option(
      names = "--url",
      scope = ScopeType.INHERIT,
      paramLabel = "URL",
      description =
          "The relay's admin HTTP address (else env RELAYCTL_URL, else " + DEFAULT_URL + ").")
  String url;

  @Option(
      names = "--token-file",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description =
          "File whose first line is the bearer token (else env RELAYCTL_TOKEN). The token is never printed.")
  Path tokenFile;

  @Option(
      names = "--timeout",
      scope = ScopeType.INHERIT,
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description =
          "How long to wait for the relay to connect and answer (e.g. 500ms, 10s; default ${DEFAULT-VALUE}).")
  Duration timeout;

  private final Environment environment;

  /** With the real terminal, clock and environment variables. */
  public Relayctl() {
    this(Environment.system());
  }

  public Relayctl(Environment environment) {
    this.environment = environment;
  }

  Environment environment() {
    return environment;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(new CommandLine(this), "a command is required");
  }

  /**
   * The client for the options given; fails with {@link #USAGE} for a bad URL or an unreadable
   * token file.
   */
  AdminClient client() {
    String given = url != null ? url : environment.variable("RELAYCTL_URL");
    String option = url != null ? "--url" : "RELAYCTL_URL";
    String address = given == null || given.isBlank() ? DEFAULT_URL : given.strip();
    URI base;
    try {
      base = new URI(address.endsWith("/") ? address.substring(0, address.length() - 1) : address);
    } catch (URISyntaxException e) {
      base = null;
    }
    if (base == null
        || (!"http".equals(base.getScheme()) && !"https".equals(base.getScheme()))
        || base.getHost() == null
        || base.getQuery() != null
        || base.getFragment() != null) {
      throw new RelayctlException(
          USAGE, option + " '" + address + "' must look like http://HOST:PORT");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new RelayctlException(USAGE, "--timeout must be positive");
    }
    return new AdminClient(base, token(), timeout);
  }

  private String token() {
    if (tokenFile == null) {
      String fromEnv = environment.variable("RELAYCTL_TOKEN");
      return fromEnv == null || fromEnv.isBlank() ? null : fromEnv.strip();
    }
    try {
      String first =
          Files.readAllLines(tokenFile, StandardCharsets.UTF_8).stream()
              .findFirst()
              .orElse("")
              .strip();
      if (first.isEmpty()) {
        throw new RelayctlException(
            USAGE, "--token-file " + tokenFile + ": the first line is empty");
      }
      return first;
    } catch (IOException e) {
      throw new RelayctlException(USAGE, "--token-file " + tokenFile + ": " + reason(e));
    }
  }

  /** Why a file could not be read, in a few words. */
  static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    return "cannot read it: " + e.getMessage();
  }

  /**
   * The command line with relayctl's error handling: usage errors and failures print one line
   * {@code relayctl: <message>} on the error stream and map to the exit codes above.
   */
  public static CommandLine commandLine(Relayctl relayctl, PrintWriter out, PrintWriter err) {
    CommandLine commandLine = new CommandLine(relayctl);
    commandLine.setOut(out);
    commandLine.setErr(err);
    commandLine.setUsageHelpAutoWidth(true);
    commandLine.setParameterExceptionHandler(
        (e, args) -> {
          String help = e.getCommandLine().getCommandSpec().qualifiedName();
          String message =
              e.getMessage().startsWith("Error: ") ? e.getMessage().substring(7) : e.getMessage();
          err.println("relayctl: " + message + " (see '" + help + " --help')");
          err.flush();
          return USAGE;
        });
    commandLine.setExecutionExceptionHandler(
        (e, cl, parsed) -> {
          if (e instanceof RelayctlException failure) {
            err.println("relayctl: " + failure.getMessage());
            err.flush();
            return failure.exitCode();
          }
          throw e;
        });
    return commandLine;
  }

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    int code = commandLine(new Relayctl(), out, err).execute(args);
    out.flush();
    System.exit(code);
  }

  /** The project version, filtered into {@code relayctl-version.properties} by the build. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      Properties p = new Properties();
      try (InputStream in = Relayctl.class.getResourceAsStream("/relayctl-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return new String[] {"relayctl " + p.getProperty("version", "unknown") + " (admin API v1)"};
    }
  }
}
