package org.binlogrelay.server;

import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The three spellings of an option: on the command line ({@code --sync-binlog}), as a configuration
 * file key ({@code sync-binlog}, see {@link ConfigFile#key}) and as an environment variable ({@code
 * BINLOG_RELAY_SYNC_BINLOG}). Stateless.
 */
final class OptionNames {
  /** What every environment variable of the relay starts with. */
  static final String ENVIRONMENT_PREFIX = "BINLOG_RELAY_";

  private OptionNames() {}

  /** {@code sync-binlog} to {@code BINLOG_RELAY_SYNC_BINLOG}. */
  static String environmentVariable(String key) {
    return ENVIRONMENT_PREFIX + key.replace('-', '_').toUpperCase(Locale.ROOT);
  }

  /**
   * {@code BINLOG_RELAY_SYNC_BINLOG} to {@code sync-binlog}; the name must start with the prefix.
   */
  static String keyOfVariable(String variable) {
    return ConfigFile.key(variable.substring(ENVIRONMENT_PREFIX.length()));
  }

  /**
   * The option key of {@code spec} closest to a misspelt {@code key}, if one is close (edit
   * distance at most 3).
   */
  static Optional<String> suggestion(CommandSpec spec, String key) {
    String best = null;
    int bestDistance = 4;
    for (OptionSpec option : spec.options()) {
      String candidate = ConfigFile.key(option.longestName());
      int d = distance(key, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
