package org.binlogrelay.e2e.campaign;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.binlogrelay.e2e.servers.ServerVersion;

/**
 * Test side: the figures of one campaign run, collected as it goes and written at the end (passed
 * or failed) as Markdown: a summary table, faults per kind with recovery times, and the timeline of
 * every fault. {@link #write} also copies the relay's logs next to the report. Not thread-safe: the
 * campaign's thread fills it.
 */
final class CampaignReport {
  /**
   * One fault: when (ms after the campaign started), its particulars, how long it lasted and the
   * catch-up after.
   */
  record Injection(
      int number, Fault fault, long atMs, String detail, long faultMs, long recoveryMs) {}

  private final ServerVersion version;
  private final long seed;
  private final double plannedMinutes;
  private final int rate;
  private final List<Injection> injections = new ArrayList<>();
  private final Map<String, String> summary = new LinkedHashMap<>();
  private long campaignMs;
  private long prepared = -1;
  private String result = "unfinished";

  CampaignReport(ServerVersion version, long seed, double plannedMinutes, int rate) {
    this.version = version;
    this.seed = seed;
    this.plannedMinutes = plannedMinutes;
    this.rate = rate;
  }

  void add(Injection injection) {
    injections.add(injection);
  }

  void campaignMs(long ms) {
    campaignMs = ms;
  }

  /** Transactions of sysbench prepare (before the campaign). */
  void prepared(long transactions) {
    prepared = transactions;
  }

  long prepared() {
    return prepared;
  }

  /** A row of the summary table. */
  void put(String what, String value) {
    summary.put(what, value);
  }

  void result(String text) {
    result = text;
  }

  List<Injection> injections() {
    return List.copyOf(injections);
  }

  /** How many times each fault was injected, every kind listed. */
  Map<Fault, Integer> counts() {
    Map<Fault, Integer> counts = new EnumMap<>(Fault.class);
    for (Fault f : Fault.values()) {
      counts.put(f, 0);
    }
    injections.forEach(i -> counts.merge(i.fault(), 1, Integer::sum));
    return counts;
  }

  String title() {
    return version + ", seed " + seed;
  }

  String markdown() {
    StringBuilder s = new StringBuilder();
    s.append("### ").append(title()).append("\n\n");
    s.append("| | |\n|---|---|\n");
    s.append("| campaign | ")
        .append(String.format(Locale.ROOT, "%.1f", campaignMs / 60_000.0))
        .append(" min of faults (-Dcampaign.minutes=")
        .append(fmt(plannedMinutes))
        .append("), ")
        .append(injections.size())
        .append(" faults, sysbench oltp_write_only at ")
        .append(rate)
        .append(" tx/s |\n");
    summary.forEach((k, v) -> s.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    s.append("| result | ").append(result).append(" |\n\n");
    s.append(
        "| fault | injected | marker row on the replica after the fault healed, median / max (ms) |\n"
            + "|---|---|---|\n");
    Map<Fault, Integer> counts = counts();
    for (Fault f : Fault.values()) {
      List<Long> recoveries =
          new ArrayList<>(
              injections.stream().filter(i -> i.fault() == f).map(Injection::recoveryMs).toList());
      Collections.sort(recoveries);
      String times =
          recoveries.isEmpty()
              ? "-"
              : recoveries.get(recoveries.size() / 2)
                  + " / "
                  + recoveries.get(recoveries.size() - 1);
      s.append("| ")
          .append(f.name())
          .append(": ")
          .append(f.description())
          .append(" | ")
          .append(counts.get(f))
          .append(" | ")
          .append(times)
          .append(" |\n");
    }
    return s.toString();
  }

  private String timeline() {
    StringBuilder s =
        new StringBuilder(
            "\n#### Timeline\n\n| # | at (s) | fault | particulars | lasted (ms) |"
                + " marker on the replica (ms) |\n|---|---|---|---|---|---|\n");
    for (Injection i : injections) {
      s.append("| ")
          .append(i.number())
          .append(" | ")
          .append(String.format(Locale.ROOT, "%.1f", i.atMs() / 1000.0))
          .append(" | ")
          .append(i.fault().name())
          .append(" | ")
          .append(i.detail())
          .append(" | ")
          .append(i.faultMs())
          .append(" | ")
          .append(i.recoveryMs())
          .append(" |\n");
    }
    return s.toString();
  }

  /**
   * Writes {@code <dir>/<flavour>-<series>-<seed>.md} (e.g. {@code mariadb-11.8-715.md}) and copies
   * {@code logs} into {@code <dir>/<flavour>-<series>-<seed>/}.
   */
  Path write(Path dir, List<Path> logs) throws IOException {
    String name =
        version.flavor().name().toLowerCase(Locale.ROOT) + "-" + version.series() + "-" + seed;
    Files.createDirectories(dir);
    Path file = dir.resolve(name + ".md");
    Files.writeString(file, markdown() + timeline(), StandardCharsets.UTF_8);
    Path logDir = Files.createDirectories(dir.resolve(name));
    for (Path log : logs) {
      if (Files.exists(log)) {
        Files.copy(log, logDir.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    return file;
  }

  private static String fmt(double minutes) {
    return minutes == Math.rint(minutes) ? Long.toString((long) minutes) : Double.toString(minutes);
  }
}
