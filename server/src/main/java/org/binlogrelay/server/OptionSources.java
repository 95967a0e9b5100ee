package org.binlogrelay.server;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where the options that the command line does not give get their values: the environment ({@code
 * BINLOG_RELAY_SYNC_BINLOG} for {@code --sync-binlog}, see {@link OptionNames}), then the
 * configuration file ({@link ConfigFile}), then the option's own default. picocli asks this {@link
 * IDefaultValueProvider} for every option it did not find on the command line, which gives the
 * precedence
 *
 * <pre>
 *   command line  >  environment  >  configuration file  >  defaults
 * </pre>
 *
 * The primary's password is one setting with two options, {@code primary-password} and {@code
 * primary-password-file}: the highest layer that gives either of them gives the password, so a
 * {@code --primary-password-file} on the command line overrides {@code
 * $BINLOG_RELAY_PRIMARY_PASSWORD}; the schema source's ({@code schema-source-password}, {@code
 * schema-source-password-file}) likewise. An empty environment variable counts as unset; one that
 * names no option is reported by {@link #warnings()}. Immutable; thread-safe.
 */
final class OptionSources implements IDefaultValueProvider {

  /** Where a value came from, in increasing precedence. */
  enum Layer {
    DEFAULT,
    FILE,
    ENVIRONMENT,
    COMMAND_LINE
  }

  /**
   * A value and its origin.
   *
   * @param where for messages: {@code relay.yaml:7}, {@code $BINLOG_RELAY_PORT}, or the option on
   *     the command line
   */
  record Setting(String value, Layer layer, String where) {}

  /** The two options that give the primary's password. */
  static final Set<String> PASSWORD_KEYS = Set.of("primary-password", "primary-password-file");

  /** The two options that give the schema source's password. */
  static final Set<String> SCHEMA_SOURCE_PASSWORD_KEYS =
      Set.of("schema-source-password", "schema-source-password-file");

  /** Each password is one setting of two options. */
  private static final List<Set<String>> PASSWORD_GROUPS =
      List.of(PASSWORD_KEYS, SCHEMA_SOURCE_PASSWORD_KEYS);

  /** Variables with the prefix that the relay's scripts and tests use for other things. */
  private static final Set<String> OTHER_VARIABLES =
      Set.of("BINLOG_RELAY_JAR", "BINLOG_RELAY_CACHE", "BINLOG_RELAY_CONFIG");

  private static final Set<String> COMMAND_LINE_ONLY = Set.of("help", "version", "config");

  private final Map<String, Setting> environment;
  private final ConfigFile file;

  /** The password groups the command line gives (one of their options is on it). */
  private final Set<Set<String>> passwordsOnCommandLine;

  private final List<String> warnings;

  private OptionSources(
      Map<String, Setting> environment,
      ConfigFile file,
      Set<Set<String>> passwordsOnCommandLine,
      List<String> warnings) {
    this.environment = environment;
    this.file = file;
    this.passwordsOnCommandLine = passwordsOnCommandLine;
    this.warnings = warnings;
  }

  /**
   * The sources for {@code spec}.
   *
   * @param variables the process environment; those starting with {@code BINLOG_RELAY_} are options
   * @param file the configuration file, or null; its keys must have been {@linkplain
   *     ConfigFile#check checked}
   * @param args the command line, to see whether it gives the password
   */
  static OptionSources of(
      CommandSpec spec, Map<String, String> variables, ConfigFile file, String[] args) {
    Map<String, Setting> environment = new LinkedHashMap<>();
    List<String> warnings = new ArrayList<>();
    for (Map.Entry<String, String> v : new TreeMap<>(variables).entrySet()) {
      String name = v.getKey();
      if (!name.startsWith(OptionNames.ENVIRONMENT_PREFIX) || OTHER_VARIABLES.contains(name)) {
        continue;
      }
      String key = OptionNames.keyOfVariable(name);
      if (ConfigFile.option(spec, key) == null || COMMAND_LINE_ONLY.contains(key)) {
        warnings.add(
            "environment variable "
                + name
                + " names no option of binlog-relay; ignored"
                + OptionNames.suggestion(spec, key)
                    .map(s -> " (did you mean " + OptionNames.environmentVariable(s) + "?)")
                    .orElse(""));
        continue;
      }
      if (!name.equals(OptionNames.environmentVariable(key))) {
        warnings.add(
            "environment variable " + name + " is read as " + OptionNames.environmentVariable(key));
      }
      if (!v.getValue().isBlank()) {
        environment.put(key, new Setting(v.getValue().strip(), Layer.ENVIRONMENT, "$" + name));
      }
    }
    Set<Set<String>> passwords = new HashSet<>();
    for (String arg : args) {
      if (arg.equals("--")) {
        break;
      }
      for (Set<String> group : PASSWORD_GROUPS) {
        if (group.stream().anyMatch(key -> arg.startsWith("--" + key))) {
          passwords.add(group);
        }
      }
    }
    return new OptionSources(
        Collections.unmodifiableMap(environment),
        file,
        Set.copyOf(passwords),
        Collections.unmodifiableList(warnings));
  }

  @Override
  public String defaultValue(ArgSpec argSpec) {
    if (argSpec instanceof OptionSpec option) {
      return setting(ConfigFile.key(option.longestName())).map(Setting::value).orElse(null);
    }
    return null;
  }

  /**
   * The value {@code key} gets from the environment or the file, and where from; empty if neither
   * gives one.
   */
  Optional<Setting> setting(String key) {
    Set<String> group =
        PASSWORD_GROUPS.stream().filter(g -> g.contains(key)).findFirst().orElse(null);
    if (group != null) {
      Layer top = passwordLayer(group);
      return top == Layer.ENVIRONMENT
          ? Optional.ofNullable(environment.get(key))
          : top == Layer.FILE ? fromFile(key) : Optional.empty();
    }
    Setting fromEnvironment = environment.get(key);
    return fromEnvironment != null ? Optional.of(fromEnvironment) : fromFile(key);
  }

  private Layer passwordLayer(Set<String> group) {
    if (passwordsOnCommandLine.contains(group)) {
      return Layer.COMMAND_LINE;
    }
    for (String key : group) {
      if (environment.containsKey(key)) {
        return Layer.ENVIRONMENT;
      }
    }
    for (String key : group) {
      if (fromFile(key).isPresent()) {
        return Layer.FILE;
      }
    }
    return Layer.DEFAULT;
  }

  private Optional<Setting> fromFile(String key) {
    if (file == null) {
      return Optional.empty();
    }
    return file.entry(key).map(e -> new Setting(e.value(), Layer.FILE, e.where()));
  }

  /** One line per environment variable that was ignored or read under another spelling. */
  List<String> warnings() {
    return warnings;
  }
}
