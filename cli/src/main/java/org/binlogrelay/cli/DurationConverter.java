package org.binlogrelay.cli;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses durations as the relay's own options do: seconds ({@code 10}, {@code 0.5}) or a number
 * with a unit ({@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, {@code 7d}). Stateless.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d)?");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  static Duration parse(String value) {
    Matcher m = FORM.matcher(value.strip());
    if (!m.matches()) {
      throw new CommandLine.TypeConversionException(
          "'"
              + value
              + "' is not a duration; use seconds (10, 0.5) or a unit: 500ms, 2s, 5m, 1h, 7d");
    }
    BigDecimal amount = new BigDecimal(m.group(1));
    long millisPerUnit =
        switch (m.group(2) == null ? "s" : m.group(2)) {
          case "ms" -> 1L;
          case "s" -> 1_000L;
          case "m" -> 60_000L;
          case "h" -> 3_600_000L;
          default -> 86_400_000L;
        };
    BigDecimal millis = amount.multiply(BigDecimal.valueOf(millisPerUnit));
    if (millis.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 1_000_000L)) > 0) {
      throw new CommandLine.TypeConversionException("'" + value + "' is too long a duration");
    }
    return Duration.ofNanos(millis.multiply(BigDecimal.valueOf(1_000_000L)).longValue());
  }
}
