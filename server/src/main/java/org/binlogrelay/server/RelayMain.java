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
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.binlogrelay.server.OptionSources.Layer;
import org.binlogrelay.server.OptionSources.Setting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Entry point of the relay process: {@code binlog-relay [OPTIONS]}. Parses the options ({@link
 * RelayOptions}, with values from the environment and {@code --config FILE}, see {@link
 * OptionSources} and {@link ConfigFile}; {@code --source URL}, see {@link SourceUrl}) into a {@link
 * RelayConfig}, {@linkplain Check checks} it against this host ({@link Preflight}) and hands it to
 * a {@link Launcher}, by default {@link RelayProcess}, which runs a {@link Relay} until SIGTERM or
 * SIGINT. A message about a value from the environment or the file names where it was set ({@code
 * relay.yaml:7}, {@code $BINLOG_RELAY_PORT}); no message or log line shows a password.
 *
 * <p>Exit status: {@value #OK} after a clean stop, {@value #FAILED} when the relay could not start
 * or stop cleanly, {@value #USAGE} for a usage error (an unknown option, a value that does not
 * parse, a missing required option, an unreadable file named by an option): one line saying what is
 * wrong, never a stack trace.
 */
@Command(
    name = "binlog-relay",
    mixinStandardHelpOptions = true,
    versionProvider = RelayMain.Version.class,
    sortOptions = false,
    usageHelpWidth = 100,
    customSynopsis = {
      "binlog-relay --source mysql://USER[:PASSWORD]@HOST[:PORT] [OPTIONS]",
      "       binlog-relay --primary HOST[:PORT] --primary-user USER [--server-id ID] [OPTIONS]",
      "       binlog-relay --config FILE.yaml [OPTIONS]",
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
      "Configuration: every option can also be set in the environment, BINLOG_RELAY_ and its name in upper",
      "snake case (BINLOG_RELAY_SYNC_BINLOG=2s for --sync-binlog), or in a YAML file (--config FILE or",
      "$BINLOG_RELAY_CONFIG) whose keys are the long option names (sync-binlog: 2s). Precedence: command",
      "line, then environment, then file, then defaults.",
      "  " + RelayOptions.PASSWORD_ENV + "  the primary's password (or --primary-password-file).",
      "  "
          + RelayOptions.SCHEMA_SOURCE_PASSWORD_ENV
          + "  the schema source's password (or"
          + " --schema-source-password-file).",
      "",
      "Examples:",
      "  Follow a primary and serve replicas on 127.0.0.1:3307:",
      "    " + RelayOptions.PASSWORD_ENV + "=... binlog-relay --source mysql://repl@db1:3306 \\",
      "        --server-id 9001 --data-dir /var/lib/binlog-relay --accounts-file /etc/binlog-relay/accounts",
      "  The same from a configuration file:",
      "    binlog-relay --config /etc/binlog-relay/relay.yaml",
      "  A password hash for the accounts file (the password is read from stdin):",
      "    java -cp binlog-relay.jar org.binlogrelay.protocol.auth.PasswordHashes",
      "  A local demo: a throwaway MySQL primary with a write load, the relay and a replica:",
      "    scripts/run",
      "",
      "Exit status: 0 after a clean stop (SIGTERM, SIGINT), 1 if the relay failed, 2 for a usage error.",
      "See docs/running.md."
    })
public final class RelayMain implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(RelayMain.class);
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;

  /** Checks a configuration against this host before the relay starts. */
  @FunctionalInterface
  public interface Check {
    /**
     * @param describe names an option in a message, by key: {@code --port}, {@code --port
     *     (relay.yaml:7)}
     * @throws RelayStartException saying which option does not fit this host, and why (exit status
     *     1)
     */
    void check(RelayConfig config, Function<String, String> describe) throws RelayStartException;
  }

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

  @Spec CommandSpec spec;

  @Mixin RelayOptions options;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      order = 1,
      description = {
        "YAML file of option values (keys: long option names, e.g. 'sync-binlog: 2s'; a .properties"
            + " file is read as properties). Also $BINLOG_RELAY_CONFIG. Environment and command line win."
      })
  Path configFile;

  @Option(
      names = "--source",
      paramLabel = "URL",
      order = 2,
      converter = OptionConverters.SourceUrlConverter.class,
      description = {
        "The primary as mysql://USER[:PASSWORD]@HOST[:PORT][?ssl-mode=MODE&ssl-ca=FILE...]"
            + " (or mariadb://): sets --primary, --primary-user, the password and --primary-ssl-*."
      })
  SourceUrl source;

  @Option(
      names = "--log-format",
      paramLabel = "text|json",
      order = 3,
      defaultValue = "text",
      converter = OptionConverters.LogFormatConverter.class,
      description = "Log lines as text or as one JSON object per line (default: ${DEFAULT-VALUE}).")
  LogFormat logFormat;

  private final Map<String, String> environment;
  private final Check check;
  private final Launcher launcher;
  private OptionSources sources;
  private Set<String> fromSource = Set.of();

  RelayMain(Map<String, String> environment, Check check, Launcher launcher) {
    this.environment = Objects.requireNonNull(environment, "environment");
    this.check = Objects.requireNonNull(check, "check");
    this.launcher = Objects.requireNonNull(launcher, "launcher");
  }

  @Override
  public Integer call() throws RelayStartException, InterruptedException {
    if (!logFormat.applyTo(LoggerFactory.getILoggerFactory())) {
      LOG.warn(
          "--log-format {}: ignored, the Logback configuration has no {} appender",
          logFormat,
          LogFormat.APPENDER);
    }
    sources.warnings().forEach(LOG::warn);
    List<String> warnings = new ArrayList<>();
    RelayConfig config;
    try {
      if (source != null) {
        fromSource = source.applyTo(options, this::layer, this::describe, layer("source"));
      }
      if (options.primary == null && layer("primary-password") == Layer.ENVIRONMENT) {
        options.primaryPassword =
            null; // $BINLOG_RELAY_PRIMARY_PASSWORD is only read when there is a primary
      }
      settleSchemaSourcePassword();
      if (options.serverId == null) {
        options.serverId = DerivedServerId.of(DerivedServerId.hostName(), options.dataDir);
        warnings.add(
            "no --server-id: using "
                + options.serverId
                + ", derived from this host's name and the data"
                + " directory; set --server-id in production, unique among the primary's replicas and the relay's");
      }
      config = options.toConfig(environment, warnings);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), withOrigin(e.getMessage()), e);
    }
    check.check(config, this::describe); // a relay that cannot start says only why
    for (String warning : warnings) {
      LOG.warn(warning);
    }
    List<String> args = spec.commandLine().getParseResult().originalArgs();
    if (passwordOnCommandLine(args)) {
      LOG.warn(
          "--primary-password with a value: other users of this host can read it in ps; prefer"
              + " --primary-password-file or ${}",
          RelayOptions.PASSWORD_ENV);
    }
    if (source != null && source.password() != null && layer("source") == Layer.COMMAND_LINE) {
      LOG.warn(
          "--source with a password: other users of this host can read it in ps; prefer"
              + " --primary-password-file or ${}",
          RelayOptions.PASSWORD_ENV);
    }
    if (options.schemaSource != null
        && (options.schemaSource.password() != null && layer("schema-source") == Layer.COMMAND_LINE
            || args.stream().anyMatch(a -> a.startsWith("--schema-source-password=")))) {
      LOG.warn(
          "the schema source's password on the command line: other users of this host can read it in ps;"
              + " prefer --schema-source-password-file or ${}",
          RelayOptions.SCHEMA_SOURCE_PASSWORD_ENV);
    }
    return launcher.run(config);
  }

  /**
   * The schema source's password, like the primary's, from the highest layer that gives one: the
   * password in the {@code --schema-source} URL or {@code --schema-source-password[-file]}; two at
   * the same layer stay for {@link RelayOptions} to refuse. Without a schema source, {@code
   * $BINLOG_RELAY_SCHEMA_SOURCE_PASSWORD} is not read.
   */
  private void settleSchemaSourcePassword() {
    Layer option =
        layer("schema-source-password").compareTo(layer("schema-source-password-file")) > 0
            ? layer("schema-source-password")
            : layer("schema-source-password-file");
    if (options.schemaSource == null) {
      if (option == Layer.ENVIRONMENT) {
        options.schemaSourcePassword = null;
        options.schemaSourcePasswordFile = null;
      }
      return;
    }
    SourceUrl url = options.schemaSource;
    if (url.password() == null || option == Layer.DEFAULT) {
      return;
    }
    Layer urlLayer = layer("schema-source");
    if (option.compareTo(urlLayer) > 0) {
      options.schemaSource =
          new SourceUrl(url.scheme(), url.host(), url.user(), null, url.parameters());
    } else if (option.compareTo(urlLayer) < 0) {
      options.schemaSourcePassword = null;
      options.schemaSourcePasswordFile = null;
    }
  }

  /** Where the value of the option {@code key} came from. */
  private Layer layer(String key) {
    if (spec.commandLine().getParseResult().hasMatchedOption("--" + key)) {
      return Layer.COMMAND_LINE;
    }
    return sources.setting(key).map(Setting::layer).orElse(Layer.DEFAULT);
  }

  /**
   * {@code --key}, followed by where it was set if not on the command line (or by {@code
   * --source}).
   */
  private String describe(String key) {
    if (fromSource.contains(key)) {
      return "--"
          + key
          + " ("
          + (layer("source") == Layer.COMMAND_LINE
              ? "--source"
              : sources.setting("source").map(Setting::where).orElse("--source"))
          + ")";
    }
    if (layer(key) == Layer.COMMAND_LINE) {
      return "--" + key;
    }
    return "--" + key + sources.setting(key).map(s -> " (" + s.where() + ")").orElse("");
  }

  private static final Pattern OPTION = Pattern.compile("--([a-z][a-z0-9-]*)");

  /**
   * {@code message}, after the origin of the first option it names if that option came from a file
   * or variable.
   */
  private String withOrigin(String message) {
    Matcher m = OPTION.matcher(message);
    if (m.find()
        && spec.findOption("--" + m.group(1)) != null
        && layer(m.group(1)) != Layer.COMMAND_LINE) {
      Optional<Setting> setting = sources.setting(m.group(1));
      if (setting.isPresent()) {
        return setting.get().where() + ": " + message;
      }
    }
    return message;
  }

  /** Whether {@code args} carry the password itself (rather than asking for the prompt). */
  static boolean passwordOnCommandLine(List<String> args) {
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i).startsWith("--primary-password=")) {
        return true;
      }
      if (args.get(i).equals("--primary-password")
          && i + 1 < args.size()
          && !args.get(i + 1).startsWith("-")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Parses {@code args} and runs the relay with {@code launcher}, without checking the
   * configuration against this host.
   *
   * @return the exit status
   */
  public static int execute(
      String[] args,
      Map<String, String> environment,
      Launcher launcher,
      PrintWriter out,
      PrintWriter err) {
    return execute(args, environment, (config, describe) -> {}, launcher, out, err);
  }

  /**
   * Parses {@code args}, checks the configuration with {@code check} and runs the relay with {@code
   * launcher}.
   *
   * @param environment the process environment: {@code BINLOG_RELAY_*} variables set options
   * @return the exit status
   */
  public static int execute(
      String[] args,
      Map<String, String> environment,
      Check check,
      Launcher launcher,
      PrintWriter out,
      PrintWriter err) {
    RelayMain main = new RelayMain(environment, check, launcher);
    CommandLine commandLine = new CommandLine(main);
    commandLine.setOut(out);
    commandLine.setErr(err);
    commandLine.setParameterExceptionHandler((e, a) -> main.usageError(e, List.of(a)));
    commandLine.setExecutionExceptionHandler((e, cmd, parseResult) -> failure(e, cmd.getErr()));
    try {
      Optional<Path> path = ConfigFile.named(args);
      String variable = OptionNames.environmentVariable("config");
      if (path.isEmpty()
          && environment.get(variable) != null
          && !environment.get(variable).isBlank()) {
        path = Optional.of(Path.of(environment.get(variable).strip()));
      }
      ConfigFile file = null;
      if (path.isPresent()) {
        file = ConfigFile.read(path.get());
        file.check(commandLine.getCommandSpec());
      }
      main.sources = OptionSources.of(commandLine.getCommandSpec(), environment, file, args);
      commandLine.setDefaultValueProvider(main.sources);
    } catch (IllegalArgumentException e) {
      err.println("binlog-relay: " + SourceUrl.redact(e.getMessage()));
      err.println("Run 'binlog-relay --help' for the options.");
      err.flush();
      return USAGE;
    }
    int status = commandLine.execute(args);
    out.flush();
    err.flush();
    return status;
  }

  /**
   * One line naming the problem (and where a value from the environment or the file was set), no
   * password.
   */
  private int usageError(ParameterException e, List<String> args) {
    PrintWriter err = e.getCommandLine().getErr();
    String message = e.getMessage();
    ArgSpec arg = e.getArgSpec();
    if (arg instanceof OptionSpec option && sources != null && !message.contains("(from ")) {
      String key = ConfigFile.key(option.longestName());
      CommandLine.ParseResult parsed = e.getCommandLine().getParseResult();
      boolean onCommandLine =
          parsed != null
              ? parsed.hasMatchedOption(option.longestName())
              : args.stream()
                  .anyMatch(
                      a ->
                          a.equals(option.longestName())
                              || a.startsWith(option.longestName() + "="));
      if (!onCommandLine) {
        message = sources.setting(key).map(s -> s.where() + ": ").orElse("") + message;
      }
    }
    err.println("binlog-relay: " + SourceUrl.redact(message));
    CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
    err.println("Run 'binlog-relay --help' for the options.");
    err.flush();
    return USAGE;
  }

  private static int failure(Exception e, PrintWriter err) {
    if (e instanceof RelayStartException) {
      err.println("binlog-relay: cannot start: " + SourceUrl.redact(e.getMessage()));
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
    System.exit(
        execute(args, System.getenv(), Preflight.ON_THIS_HOST, new RelayProcess(), out, err));
  }

  /** Reads the version Maven wrote into the jar. */
  static final class Version implements CommandLine.IVersionProvider {
    static String projectVersion() {
      Properties p = new Properties();
      try (InputStream in =
          RelayMain.class.getResourceAsStream("/binlog-relay-version.properties")) {
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
