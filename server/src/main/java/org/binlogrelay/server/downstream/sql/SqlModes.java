package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code sql_mode} as the servers store it: a SET of mode names, upper case, each once, in the
 * server's own order (its bit order, not the order written), with the combination modes {@code
 * ANSI} and {@code TRADITIONAL} expanded into the modes they stand for; an unknown name refuses the
 * whole value (1231). What {@code SELECT @@sql_mode} shows after {@code SET sql_mode =
 * CONCAT(@@sql_mode, ',STRICT_TRANS_TABLES')} (MariaDB Connector/J's) or after a client asked for
 * IGNORE_SPACE in its handshake. Stateless.
 */
final class SqlModes {
  /** MySQL 8.4 / 9.x's modes, in bit order. */
  static final List<String> MYSQL =
      List.of(
          "REAL_AS_FLOAT",
          "PIPES_AS_CONCAT",
          "ANSI_QUOTES",
          "IGNORE_SPACE",
          "ONLY_FULL_GROUP_BY",
          "NO_UNSIGNED_SUBTRACTION",
          "NO_DIR_IN_CREATE",
          "ANSI",
          "NO_AUTO_VALUE_ON_ZERO",
          "NO_BACKSLASH_ESCAPES",
          "STRICT_TRANS_TABLES",
          "STRICT_ALL_TABLES",
          "NO_ZERO_IN_DATE",
          "NO_ZERO_DATE",
          "ALLOW_INVALID_DATES",
          "ERROR_FOR_DIVISION_BY_ZERO",
          "TRADITIONAL",
          "HIGH_NOT_PRECEDENCE",
          "NO_ENGINE_SUBSTITUTION",
          "PAD_CHAR_TO_FULL_LENGTH",
          "TIME_TRUNCATE_FRACTIONAL");

  /** MariaDB 10.11's modes, in bit order. */
  static final List<String> MARIADB =
      List.of(
          "REAL_AS_FLOAT",
          "PIPES_AS_CONCAT",
          "ANSI_QUOTES",
          "IGNORE_SPACE",
          "IGNORE_BAD_TABLE_OPTIONS",
          "ONLY_FULL_GROUP_BY",
          "NO_UNSIGNED_SUBTRACTION",
          "NO_DIR_IN_CREATE",
          "POSTGRESQL",
          "ORACLE",
          "MSSQL",
          "DB2",
          "MAXDB",
          "NO_KEY_OPTIONS",
          "NO_TABLE_OPTIONS",
          "NO_FIELD_OPTIONS",
          "MYSQL323",
          "MYSQL40",
          "ANSI",
          "NO_AUTO_VALUE_ON_ZERO",
          "NO_BACKSLASH_ESCAPES",
          "STRICT_TRANS_TABLES",
          "STRICT_ALL_TABLES",
          "NO_ZERO_IN_DATE",
          "NO_ZERO_DATE",
          "ALLOW_INVALID_DATES",
          "ERROR_FOR_DIVISION_BY_ZERO",
          "TRADITIONAL",
          "NO_AUTO_CREATE_USER",
          "HIGH_NOT_PRECEDENCE",
          "NO_ENGINE_SUBSTITUTION",
          "PAD_CHAR_TO_FULL_LENGTH",
          "EMPTY_STRING_IS_NULL",
          "SIMULTANEOUS_ASSIGNMENT",
          "TIME_ROUND_FRACTIONAL");

  private static final Map<String, List<String>> COMBINATIONS =
      Map.of(
          "ANSI",
              List.of(
                  "REAL_AS_FLOAT",
                  "PIPES_AS_CONCAT",
                  "ANSI_QUOTES",
                  "IGNORE_SPACE",
                  "ONLY_FULL_GROUP_BY"),
          "TRADITIONAL",
              List.of(
                  "STRICT_TRANS_TABLES",
                  "STRICT_ALL_TABLES",
                  "NO_ZERO_IN_DATE",
                  "NO_ZERO_DATE",
                  "ERROR_FOR_DIVISION_BY_ZERO",
                  "NO_ENGINE_SUBSTITUTION"));

  private SqlModes() {}

  /** {@code value} in the server's form, or null if it names a mode the server does not have. */
  static String normalise(String value, List<String> modes) {
    Set<String> set = new LinkedHashSet<>();
    for (String part : value.split(",", -1)) {
      String mode = part.strip().toUpperCase(Locale.ROOT);
      if (mode.isEmpty()) {
        continue;
      }
      if (!modes.contains(mode)) {
        return null;
      }
      set.add(mode);
      for (String implied : COMBINATIONS.getOrDefault(mode, List.of())) {
        if (modes.contains(implied)) {
          set.add(implied);
        }
      }
    }
    if (set.contains("TRADITIONAL") && modes.contains("NO_AUTO_CREATE_USER")) {
      set.add("NO_AUTO_CREATE_USER");
    }
    List<String> ordered = new ArrayList<>();
    for (String mode : modes) {
      if (set.contains(mode)) {
        ordered.add(mode);
      }
    }
    return String.join(",", ordered);
  }
}
