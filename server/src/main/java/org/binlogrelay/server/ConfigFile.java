package org.binlogrelay.server;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A relay configuration file ({@code --config FILE} or {@code $BINLOG_RELAY_CONFIG}): YAML (UTF-8)
 * whose keys are the long option names without their dashes, flat, one {@code key: value} per
 * option, so {@code sync-binlog: every-transaction} is {@code --sync-binlog every-transaction}. As
 * in MySQL's option files, {@code _} and {@code -} are the same in a key ({@code sync_binlog}). A
 * file whose name ends in {@code .properties} is read as a Java properties file with the same keys
 * (the format of earlier versions).
 *
 * <pre>
 *   # /etc/binlog-relay/relay.yaml
 *   source: mysql://repl@db1.example:3306
 *   primary-password-file: /etc/binlog-relay/primary-password
 *   server-id: 9001
 *   data-dir: /var/lib/binlog-relay
 *   accounts-file: /etc/binlog-relay/accounts
 * </pre>
 *
 * Every value is a scalar; a nested mapping, a list, an empty value or a key given twice is refused
 * with the file and line ({@link #read}), and so is a key that names no option ({@link #check}).
 * Values are kept as written and parsed by the options' own converters (YAML's {@code off}, {@code
 * yes} stay text). Immutable after {@link #read}; thread-safe.
 */
final class ConfigFile {
  /** Options that make no sense in a file. */
  private static final List<String> COMMAND_LINE_ONLY = List.of("config", "help", "version");

  /**
   * One value of the file.
   *
   * @param value as written, stripped
   * @param where {@code FILE:LINE}, for messages
   */
  record Entry(String value, String where) {}

  private final Path path;
  private final Map<String, Entry> entries;

  private ConfigFile(Path path, Map<String, Entry> entries) {
    this.path = path;
    this.entries = Collections.unmodifiableMap(entries);
  }

  /**
   * Reads {@code path}: YAML, or a properties file if its name ends in {@code .properties}.
   *
   * @throws IllegalArgumentException naming the file (and the line) if it cannot be read or parsed
   */
  static ConfigFile read(Path path) {
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--config " + path + ": cannot read it (" + reason(e) + ")");
    }
    boolean properties =
        path.getFileName() != null && path.getFileName().toString().endsWith(".properties");
    return new ConfigFile(path, properties ? properties(path, text) : yaml(path, text));
  }

  private static Map<String, Entry> yaml(Path path, String text) {
    Map<String, Entry> entries = new LinkedHashMap<>();
    try (JsonParser parser = YAMLFactory.builder().build().createParser(new StringReader(text))) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        return entries; // an empty file (or comments only)
      }
      if (first != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException(
            where(path, parser.currentTokenLocation())
                + ": expected 'key: value'"
                + " lines (keys are the long option names without '--', e.g. 'server-id: 9001')");
      }
      for (JsonToken token = parser.nextToken();
          token != JsonToken.END_OBJECT;
          token = parser.nextToken()) {
        String where = where(path, parser.currentTokenLocation());
        String key = key(parser.currentName());
        JsonToken value = parser.nextToken();
        if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
          throw new IllegalArgumentException(
              where
                  + ": '"
                  + key
                  + "' has a "
                  + (value == JsonToken.START_OBJECT ? "nested mapping" : "list")
                  + "; keys are flat option names with one value each (e.g."
                  + " 'primary-user: repl', not 'primary: {user: repl}')");
        }
        String scalar = value == JsonToken.VALUE_NULL ? "" : parser.getText().strip();
        if (scalar.isEmpty()) {
          throw new IllegalArgumentException(
              where + ": '" + key + "' has no value; give one or remove the line");
        }
        Entry earlier = entries.put(key, new Entry(scalar, where));
        if (earlier != null) {
          throw new IllegalArgumentException(
              where + ": '" + key + "' is set twice (also at " + earlier.where() + ")");
        }
      }
      if (parser.nextToken() != null) {
        throw new IllegalArgumentException(
            where(path, parser.currentTokenLocation())
                + ": a second YAML document;"
                + " the file must hold one");
      }
    } catch (StreamReadException e) {
      JsonLocation at = e.getLocation();
      throw new IllegalArgumentException(
          (at == null ? "--config " + path : where(path, at))
              + ": not valid YAML ("
              + e.getOriginalMessage().lines().findFirst().orElse("")
              + ")");
    } catch (IOException e) {
      throw new IllegalArgumentException("--config " + path + ": cannot read it (" + e + ")");
    }
    return entries;
  }

  private static Map<String, Entry> properties(Path path, String text) {
    Properties properties = new Properties();
    try (Reader reader = new StringReader(text)) {
      properties.load(reader);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--config " + path + ": cannot read it (" + e.getMessage() + ")");
    }
    List<String> lines = text.lines().toList();
    Map<String, Entry> entries = new LinkedHashMap<>();
    List<String> names = new ArrayList<>(properties.stringPropertyNames());
    names.sort((a, b) -> Integer.compare(lineOf(lines, a), lineOf(lines, b)));
    for (String name : names) {
      String key = key(name);
      int line = lineOf(lines, name);
      String where = path + (line > 0 ? ":" + line : "");
      Entry earlier = entries.put(key, new Entry(properties.getProperty(name).strip(), where));
      if (earlier != null) {
        throw new IllegalArgumentException(
            where + ": '" + key + "' is set twice (also at " + earlier.where() + ")");
      }
    }
    return entries;
  }

  /**
   * The 1-based line where a properties file sets {@code name}, 0 if not found (a continued or
   * escaped key).
   */
  private static int lineOf(List<String> lines, String name) {
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).stripLeading();
      if (line.startsWith(name)
          && (line.length() == name.length() || "=: \t".indexOf(line.charAt(name.length())) >= 0)) {
        return i + 1;
      }
    }
    return 0;
  }

  /**
   * What went wrong with a file, in words: "no such file", "permission denied", "is a directory".
   */
  static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason().toLowerCase(Locale.ROOT);
    }
    return String.valueOf(e.getMessage());
  }

  private static String where(Path path, JsonLocation location) {
    return path + ":" + location.getLineNr();
  }

  /**
   * The key an option name or a written key stands for: no leading dashes, lower case, {@code -}
   * for {@code _}.
   */
  static String key(String name) {
    String key = name.strip().replace('_', '-').toLowerCase(Locale.ROOT);
    while (key.startsWith("-")) {
      key = key.substring(1);
    }
    return key;
  }

  /**
   * The file named by {@code --config FILE} or {@code --config=FILE} among {@code args}, before
   * picocli parses them (the file supplies the defaults of that parse).
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
   * @throws IllegalArgumentException naming the key, the file and the line
   */
  void check(CommandSpec spec) {
    for (Map.Entry<String, Entry> e : entries.entrySet()) {
      String key = e.getKey();
      if (COMMAND_LINE_ONLY.contains(key)) {
        throw new IllegalArgumentException(
            e.getValue().where() + ": '" + key + "' can only be given on the command line");
      }
      if (option(spec, key) == null) {
        throw new IllegalArgumentException(
            e.getValue().where()
                + ": unknown key '"
                + key
                + "'"
                + OptionNames.suggestion(spec, key)
                    .map(s -> " (did you mean '" + s + "'?)")
                    .orElse("")
                + "; keys are the long option names without '--' (see --help), e.g. 'sync-binlog: every-transaction'");
      }
    }
  }

  /** The option {@code key} names in {@code spec} (by its longest name), or null. */
  static OptionSpec option(CommandSpec spec, String key) {
    OptionSpec option = spec.findOption("--" + key);
    return option != null && option.longestName().equals("--" + key) ? option : null;
  }

  /** The value the file gives {@code key}, if any. */
  Optional<Entry> entry(String key) {
    return Optional.ofNullable(entries.get(key));
  }

  Path path() {
    return path;
  }
}
