package org.binlogrelay.e2e.campaign;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test side: what the relay's logs (every incarnation's, in the format of the relay's own {@code
 * logback.xml}: {@code yyyy-MM-dd HH:mm:ss.SSS LEVEL [thread] Logger: message}) say about a
 * campaign: how many WARN and ERROR lines of each kind, and the lines no fault explains.
 *
 * <p>Expected: WARNs (lost connections, reconnections, recovery cutting an incomplete transaction
 * after a SIGKILL), and the two ERROR lines of a full disk or a failing device (the store's "is out
 * of space" or "hit an I/O error" and the replicator's "stopped accepting writes (DISK_FULL)" or
 * "(IO_ERROR)"). Unexpected: any other ERROR (a replicator that stopped for good, a failed stop, a
 * listener or retention failure, a Netty leak report), an uncaught exception ("Exception in
 * thread"), an OutOfMemoryError, a JVM crash report.
 */
record RelayLog(
    Map<String, Integer> warnings, Map<String, Integer> errors, List<String> unexpected) {
  private static final Pattern LINE =
      Pattern.compile(
          "^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} (TRACE|DEBUG|INFO|WARN|ERROR) +\\[[^\\]]*\\] (\\S+): (.*)$");
  private static final List<String> EXPECTED_ERRORS =
      List.of(
          " is out of space: ",
          " hit an I/O error: ",
          "the store stopped accepting writes (DISK_FULL)",
          "the store stopped accepting writes (IO_ERROR)");
  private static final List<String> NEVER =
      List.of(
          "Exception in thread",
          "OutOfMemoryError",
          "A fatal error has been detected by the Java Runtime");

  /** Reads and classifies every line of {@code files}. */
  static RelayLog of(List<Path> files) {
    Map<String, Integer> warnings = new TreeMap<>();
    Map<String, Integer> errors = new TreeMap<>();
    List<String> unexpected = new ArrayList<>();
    for (Path file : files) {
      List<String> lines;
      try {
        lines = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (String line : lines) {
        for (String never : NEVER) {
          if (line.contains(never)) {
            unexpected.add(file.getFileName() + ": " + line);
          }
        }
        Matcher m = LINE.matcher(line);
        if (!m.matches()) {
          continue;
        }
        String kind = m.group(2) + ": " + shape(m.group(3));
        if (m.group(1).equals("WARN")) {
          warnings.merge(kind, 1, Integer::sum);
        } else if (m.group(1).equals("ERROR")) {
          errors.merge(kind, 1, Integer::sum);
          if (EXPECTED_ERRORS.stream().noneMatch(line::contains)) {
            unexpected.add(file.getFileName() + ": " + line);
          }
        }
      }
    }
    return new RelayLog(warnings, errors, unexpected);
  }

  /**
   * A message with its particulars removed, so that lines of one kind count together: the first 90
   * characters, numbers, positions and addresses replaced by {@code #}.
   */
  static String shape(String message) {
    String s =
        message
            .replaceAll(
                "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(:[0-9-]+)?", "#")
            .replaceAll("\\d+", "#");
    return s.length() > 90 ? s.substring(0, 90) + "..." : s;
  }
}
