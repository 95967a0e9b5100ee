package org.binlogrelay.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.binlogrelay.bench.report.Report;
import picocli.CommandLine.Option;

/** {@code --json} and {@code --plot FILE}: how a run's report is written. */
final class OutputOptions {
  @Option(names = "--json", description = "Print the report as JSON instead of a Markdown table.")
  boolean json;

  @Option(
      names = "--plot",
      paramLabel = "FILE",
      description = "Write an SVG time-series plot to FILE.")
  Path plot;

  void write(Report report, PrintWriter out) throws IOException {
    out.println(json ? report.json() : report.markdown());
    out.flush();
    if (plot != null) {
      String svg = report.svg();
      if (svg != null) {
        Files.writeString(plot, svg, StandardCharsets.UTF_8);
      }
    }
  }
}
