package org.binlogrelay.e2e.downstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What one run of a binlog library's client program printed ({@link BinlogLibraries}): the decoded
 * events, one JSON object a line ({@code gtid}, {@code query}, {@code rows}, {@code xid}, and
 * {@code end} after the marker row), and every other line (the library's and the program's log).
 * Immutable.
 *
 * @param name which library read from where, for messages
 * @param exitCode the program's exit code (0: it saw the marker row)
 * @param events the decoded events, in stream order
 * @param logLines the lines that are not events
 */
record DecodedStream(String name, int exitCode, List<JsonNode> events, List<String> logLines) {
  private static final ObjectMapper JSON = new ObjectMapper();

  static DecodedStream read(String name, int exitCode, Path output) {
    List<JsonNode> events = new ArrayList<>();
    List<String> log = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(output)) {
        JsonNode event = line.startsWith("{") ? parse(line) : null;
        if (event != null && event.has("kind")) {
          events.add(event);
        } else {
          log.add(line);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + output, e);
    }
    return new DecodedStream(name, exitCode, List.copyOf(events), List.copyOf(log));
  }

  private static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (IOException notJson) {
      return null;
    }
  }

  /** The events of one kind. */
  List<JsonNode> ofKind(String kind) {
    return events.stream().filter(e -> e.path("kind").asText().equals(kind)).toList();
  }

  /** Rows of all row events (an update's before and after count once). */
  int rowCount() {
    return ofKind("rows").stream().mapToInt(e -> e.path("rows").size()).sum();
  }

  /** Row events on {@code table}. */
  List<JsonNode> rowEvents(String table) {
    return ofKind("rows").stream().filter(e -> e.path("table").asText().equals(table)).toList();
  }

  /** The events without {@code ready} (when each side was ready differs, what follows does not). */
  List<JsonNode> comparable() {
    return events.stream().filter(e -> !e.path("kind").asText().equals("ready")).toList();
  }

  /** A one-line summary: events by kind, rows. */
  String summary() {
    return comparable().size()
        + " events ("
        + ofKind("gtid").size()
        + " gtid, "
        + ofKind("query").size()
        + " query, "
        + ofKind("rows").size()
        + " row events with "
        + rowCount()
        + " rows, "
        + ofKind("xid").size()
        + " xid)";
  }

  /** Where this stream first differs from {@code other}, or null if they are equal. */
  String firstDifference(DecodedStream other) {
    List<JsonNode> mine = comparable();
    List<JsonNode> theirs = other.comparable();
    for (int i = 0; i < Math.min(mine.size(), theirs.size()); i++) {
      if (!mine.get(i).equals(theirs.get(i))) {
        return "event "
            + i
            + ":\n  "
            + name
            + ": "
            + mine.get(i)
            + "\n  "
            + other.name
            + ": "
            + theirs.get(i);
      }
    }
    if (mine.size() != theirs.size()) {
      return name
          + " has "
          + mine.size()
          + " events, "
          + other.name
          + " "
          + theirs.size()
          + "; the first extra: "
          + (mine.size() > theirs.size() ? mine.get(theirs.size()) : theirs.get(mine.size()));
    }
    return null;
  }

  /** The output, for failure messages: the log lines and the last events. */
  String describe() {
    List<JsonNode> last = events.subList(Math.max(0, events.size() - 5), events.size());
    return name
        + " exited "
        + exitCode
        + " after "
        + events.size()
        + " events; log:\n  "
        + String.join("\n  ", logLines.subList(Math.max(0, logLines.size() - 40), logLines.size()))
        + "\n last events:\n  "
        + last;
  }
}
