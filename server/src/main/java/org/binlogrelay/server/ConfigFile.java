package org.binlogrelay.server;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A relay configuration file ({@code --config FILE}): a Java properties file (UTF-8) whose keys are the long
 * option names without their dashes, so {@code sync-binlog=every-transaction} is {@code --sync-binlog
 * every-transaction}. As in MySQL's option files, {@code _} and {@code -} are the same in a key
 * ({@code sync_binlog}). Options given on the command line win over the file: the file supplies picocli's
 * default values ({@link IDefaultValueProvider}).
 *
 * <pre>
 *   # /etc/binlog-relay.properties
 *   data-dir=/var/lib/binlog-relay
 *   primary=db1.example:3306
 *   primary-user=repl
 *   primary-password-file=/etc/binlog-relay/primary-password
 *   server-id=9001
 *   accounts-file=/etc/binlog-relay/accounts
 * </pre>
 *
 * Immutable after {@link #read}; thread-safe.
 */
final class ConfigFile implements IDefaultValueProvider {
  /** Options that make no sense in a file. */
  private static final List<String> COMMAND_LINE_ONLY = List.of("config", "help", "version");

  private final Path path;
  private final Map<String, String> values;

  private ConfigFile(Path path, Map<String, String> values) {
    this.path = path;
    this.values = values;
  }

  /**
   * Reads {@code path}.
   *
   * @throws IllegalArgumentException if it cannot be read or is not a properties file
   */
  static ConfigFile read(Path path) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("--config " + path + ": cannot read it (" + e.getMessage() + ")");
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (String name : new TreeSet<>(properties.stringPropertyNames())) {
      String key = key(name);
      if (values.put(key, properties.getProperty(name).strip()) != null) {
        throw new IllegalArgumentException("--config " + path + ": '" + key + "' is set twice");
      }
    }
    return new ConfigFile(path, values);
  }

  private static String key(String name) {
    String key = name.strip().replace('_', '-').toLowerCase(Locale.ROOT);
    while (key.startsWith("-")) {
      key = key.substring(1);
    }
    return key;
  }

  /**
   * The file named by {@code --config FILE} or {@code --config=FILE} among {@code args}, before picocli parses
   * them (the file supplies the defaults of that parse).
   *
   * @throws IllegalArgumentException if {@code --config} has no value
   */
  static Optional<Path> named(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--")) {
        break;
      }
      if (args[i].equals("--config")) {
        if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
          throw new IllegalArgumentException("--config needs a FILE");
        }
        return Optional.of(Path.of(args[i + 1]));
      }
      if (args[i].startsWith("--config=")) {
        return Optional.of(Path.of(args[i].substring("--config=".length())));
      }
    }
    return Optional.empty();
  }

  /**
   * Refuses keys that name no option of {@code spec}: a misspelt key would otherwise be ignored.
   *
   * @throws IllegalArgumentException naming the key and the file
   */
  void check(CommandSpec spec) {
    for (String key : values.keySet()) {
      if (COMMAND_LINE_ONLY.contains(key)) {
        throw new IllegalArgumentException("--config " + path + ": '" + key
            + "' can only be given on the command line");
      }
      OptionSpec option = spec.findOption("--" + key);
      if (option == null || !option.longestName().equals("--" + key)) {
        throw new IllegalArgumentException("--config " + path + ": unknown key '" + key + "'; keys are the long"
            + " option names without '--' (see --help), e.g. sync-binlog=every-transaction");
      }
    }
  }

  @Override
  public String defaultValue(ArgSpec argSpec) {
    if (argSpec instanceof OptionSpec option) {
      return values.get(key(option.longestName()));
    }
    return null;
  }

  Path path() {
    return path;
  }
}
