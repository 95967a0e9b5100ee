package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code relayctl purge --to FILE | --before TIME [--force]}: {@code POST /api/v1/binlogs/purge},
 * like {@code PURGE BINARY LOGS TO} and {@code ... BEFORE}. A time is ISO-8601 with a zone, a date
 * and time without one (read as UTC), a date (midnight UTC), or an age ({@code 7d}: older than 7
 * days ago).
 */
@Command(
    name = "purge",
    description = {
      "Removes old stored binlog files, like PURGE BINARY LOGS.",
      "",
      "Removes the files before FILE, or those whose last event is before TIME. Files a replica still reads "
          + "are kept unless --force is given."
    },
    footer = {
      "",
      "TIME is 2026-11-20T00:00:00Z, '2026-11-20 00:00:00' (UTC), 2026-11-20 (midnight UTC), "
          + "or an age such as 7d, 12h, 30m (older than that).",
      "",
      "Examples:",
      "  relayctl purge --to binlog.000040",
      "  relayctl purge --before 7d",
      "  relayctl purge --before 2026-11-20T00:00:00Z --force"
    })
final class PurgeCommand extends RelayCommand {
  static final class Target {
    @Option(
        names = "--to",
        paramLabel = "FILE",
        required = true,
        description = "Remove the files before FILE (FILE itself is kept).")
    String to;

    @Option(
        names = "--before",
        paramLabel = "TIME",
        required = true,
        description = "Remove the files whose last event is before TIME.")
    String before;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Target target;

  @Option(names = "--force", description = "Also remove files that replicas are still reading.")
  boolean force;

  @Mixin JsonOption json;

  @Override
  public Integer call() {
    ObjectNode body = AdminClient.JSON.createObjectNode();
    if (target.to != null) {
      if (target.to.isBlank() || target.to.contains("/")) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--to needs a binlog file name such as binlog.000040");
      }
      body.put("to", target.to);
    } else {
      body.put("before", before(target.before).toString());
    }
    if (force) {
      body.put("force", true);
    }
    JsonNode answer = client().post("/api/v1/binlogs/purge", body);
    if (json.json) {
      return printJson(answer);
    }
    List<String> lines = new ArrayList<>();
    AdminObjects.PurgeObject purged = AdminObjects.of(answer, AdminObjects.PurgeObject.class);
    List<String> removed = names(purged.removed());
    List<String> kept = names(purged.kept());
    lines.add(
        removed.isEmpty()
            ? "Removed nothing."
            : "Removed " + plural(removed.size()) + ": " + String.join(", ", removed));
    if (!kept.isEmpty()) {
      lines.add(
          "Kept "
              + plural(kept.size())
              + " still read by replicas: "
              + String.join(", ", kept)
              + (force ? "" : " (--force removes them)"));
    }
    return print(lines);
  }

  private Instant before(String text) {
    String t = text.strip();
    try {
      if (t.matches("\\d+(\\.\\d+)?\\s*(ms|s|m|h|d)")) {
        return environment().clock().instant().minus(DurationConverter.parse(t));
      }
      if (t.matches("\\d{4}-\\d{2}-\\d{2}")) {
        return LocalDate.parse(t).atStartOfDay().toInstant(ZoneOffset.UTC);
      }
      if (t.endsWith("Z") || t.matches(".*[+-]\\d{2}:\\d{2}$")) {
        return OffsetDateTime.parse(t.replace(' ', 'T')).toInstant();
      }
      return LocalDateTime.parse(t.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException | CommandLine.TypeConversionException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--before '"
              + text
              + "' is not a time; use 2026-11-20T00:00:00Z, '2026-11-20 00:00:00' (UTC), 2026-11-20 or an age like 7d");
    }
  }

  private static List<String> names(JsonNode array) {
    List<String> names = new ArrayList<>();
    if (array != null && array.isArray()) {
      array.forEach(n -> names.add(n.asText()));
    }
    return names;
  }

  private static String plural(int files) {
    return files + (files == 1 ? " file" : " files");
  }
}
