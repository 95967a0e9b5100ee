package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Numbers as a person reads them in a table: sizes in binary units ({@code 512 B}, {@code 1.2 MiB},
 * {@code 12 MiB}), rates ({@code 12 MiB/s}), durations ({@code 0.4 s}, {@code 42 s}, {@code 4m12s},
 * {@code 2h05m}, {@code 3d04h}), ETAs as a clock ({@code 0:42}, {@code 1:02:03}) and times in UTC
 * ({@code 2026-11-20 10:00:00}). One decimal below 10, none from 10 on. A value that is not known
 * (JSON {@code null} or missing) is {@link #UNKNOWN}. Stateless.
 */
final class HumanUnits {
  static final String UNKNOWN = "-";
  private static final String[] BINARY = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  private static final DateTimeFormatter UTC =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

  private HumanUnits() {}

  static String bytes(double bytes) {
    double magnitude = Math.abs(bytes);
    int unit = 0;
    while (magnitude >= 1024 && unit < BINARY.length - 1) {
      magnitude /= 1024;
      unit++;
    }
    if (unit == 0) {
      return String.format(Locale.ROOT, "%d B", Math.round(bytes));
    }
    String sign = bytes < 0 ? "-" : "";
    return sign + oneDecimalBelowTen(magnitude) + " " + BINARY[unit];
  }

  static String bytes(JsonNode node) {
    return known(node) ? bytes(node.asDouble()) : UNKNOWN;
  }

  static String rate(JsonNode bytesPerSecond) {
    return known(bytesPerSecond) ? bytes(bytesPerSecond.asDouble()) + "/s" : UNKNOWN;
  }

  /**
   * Seconds (a lag, an age): {@code 0 s}, {@code 0.4 s}, {@code 42 s}, {@code 4m12s}, {@code
   * 2h05m}, {@code 3d04h}.
   */
  static String seconds(double seconds) {
    String sign = seconds < 0 ? "-" : "";
    double s = Math.abs(seconds);
    if (s < 60) {
      return sign + (s == 0 ? "0" : oneDecimalBelowTen(s)) + " s";
    }
    long whole = (long) Math.floor(s);
    if (whole < 3600) {
      return String.format(Locale.ROOT, "%s%dm%02ds", sign, whole / 60, whole % 60);
    }
    if (whole < 86_400) {
      return String.format(Locale.ROOT, "%s%dh%02dm", sign, whole / 3600, whole % 3600 / 60);
    }
    return String.format(Locale.ROOT, "%s%dd%02dh", sign, whole / 86_400, whole % 86_400 / 3600);
  }

  static String seconds(JsonNode node) {
    return known(node) ? seconds(node.asDouble()) : UNKNOWN;
  }

  static String duration(Duration duration) {
    return seconds(duration.toNanos() / 1e9);
  }

  /**
   * Time to go as a clock: {@code 0:42}, {@code 12:03}, {@code 1:02:03}; over 99 hours as {@link
   * #seconds}.
   */
  static String eta(JsonNode node) {
    if (!known(node) || node.asDouble() < 0) {
      return UNKNOWN;
    }
    long s = (long) Math.ceil(node.asDouble());
    if (s >= 100 * 3600) {
      return seconds((double) s);
    }
    return s < 3600
        ? String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60)
        : String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s % 3600 / 60, s % 60);
  }

  /**
   * An ISO-8601 time from the API in UTC without the {@code T} and fractions; unparsable text as it
   * is.
   */
  static String time(JsonNode node) {
    if (!known(node)) {
      return UNKNOWN;
    }
    try {
      return UTC.format(Instant.parse(node.asText()));
    } catch (DateTimeParseException e) {
      return node.asText();
    }
  }

  static String count(JsonNode node) {
    return known(node) ? node.asText() : UNKNOWN;
  }

  static String text(JsonNode node) {
    return known(node) && !node.asText().isEmpty() ? node.asText() : UNKNOWN;
  }

  /** {@code {"file": "binlog.000042", "position": 157}} as {@code binlog.000042:157}. */
  static String position(JsonNode node) {
    if (!known(node) || !node.isObject()) {
      return UNKNOWN;
    }
    return node.path("file").asText("?") + ":" + node.path("position").asText("?");
  }

  static boolean known(JsonNode node) {
    return node != null && !node.isNull() && !node.isMissingNode();
  }

  private static String oneDecimalBelowTen(double value) {
    if (value < 9.95) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    return String.format(Locale.ROOT, "%d", Math.round(value));
  }
}
