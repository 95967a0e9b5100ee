package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code relayctl pitr --until-time T | --stop-before-gtid G | --stop-after-gtids S [--backup-gtids
 * B] [--write DIR]}: {@code POST /api/v1/pitr/plan}, printed; with {@code --write}, every file of
 * the plan is downloaded ({@code GET /api/v1/pitr/binlog}, the last one cut at the stop), its size
 * checked, and the command that applies them printed.
 */
@Command(
    name = "pitr",
    description = {
      "Plans a point-in-time recovery from the relay's binlogs, and downloads the files to apply.",
      "",
      "Restore a backup first; then give where to stop (a time, the GTID of the accidental "
          + "transaction, or a GTID set) and the backup's GTID set (MySQL gtid_executed, "
          + "MariaDB gtid_slave_pos). The stop is always at a transaction boundary: a time "
          + "keeps every transaction that committed before it."
    },
    footer = {
      "",
      "TIME is ISO-8601 UTC, such as 2026-11-20T10:15:00Z.",
      "",
      "Examples:",
      "  relayctl pitr --stop-before-gtid 3E11FA47-71CA-11E1-9E33-C80AA9429562:4711 \\",
      "      --backup-gtids \"$(mysql -N -e 'SELECT @@gtid_executed' | tr -d '\\n')\" --write /tmp/pitr",
      "  relayctl pitr --until-time 2026-11-20T10:15:00Z --backup-gtids 0-1-1200 --write /tmp/pitr",
      "  relayctl pitr --stop-after-gtids 'uuid:1-500' --json"
    })
final class PitrCommand extends RelayCommand {
  static final class Stop {
    @Option(
        names = "--until-time",
        paramLabel = "TIME",
        required = true,
        description = "Apply every transaction that committed before TIME, nothing after.")
    String untilTime;

    @Option(
        names = "--stop-before-gtid",
        paramLabel = "GTID",
        required = true,
        description = "Stop right before the transaction GTID (the accidental DROP, DELETE ...).")
    String stopBeforeGtid;

    @Option(
        names = "--stop-after-gtids",
        paramLabel = "SET",
        required = true,
        description = "Stop after the last transaction of the GTID set SET.")
    String stopAfterGtids;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Stop stop;

  @Option(
      names = "--backup-gtids",
      paramLabel = "SET",
      description =
          "The restored backup's GTID set (MySQL gtid_executed; MariaDB gtid_slave_pos): "
              + "where applying starts. Without it, from the oldest stored file.")
  String backupGtids;

  @Option(
      names = "--write",
      paramLabel = "DIR",
      description =
          "Download the files to apply into DIR (the last one cut at the stop), check their "
              + "sizes and print the command that applies them.")
  Path write;

  @Mixin JsonOption json;

  @Override
  public Integer call() {
    validate();
    ObjectNode body = AdminClient.JSON.createObjectNode();
    if (stop.untilTime != null) {
      body.put("untilTime", stop.untilTime.strip());
    } else if (stop.stopBeforeGtid != null) {
      body.put("stopBeforeGtid", stop.stopBeforeGtid.strip());
    } else {
      body.put("stopAfterGtids", stop.stopAfterGtids.strip());
    }
    if (backupGtids != null) {
      body.put("backupGtids", backupGtids.strip());
    }
    JsonNode plan = client().post("/api/v1/pitr/plan", body);
    List<Path> written = write == null ? List.of() : download(plan);
    if (json.json) {
      return printJson(plan);
    }
    List<String> lines = new ArrayList<>(describe(plan));
    if (write != null) {
      lines.add("");
      lines.add("Wrote " + written.size() + " file(s) to " + write + " (sizes checked).");
      lines.add("Apply them to the restored server with:");
      lines.add("  " + applyCommand(plan, written));
      JsonNode s = plan.get("stop");
      if (plan.path("flavor").asText().equals("mysql")) {
        lines.add("Afterwards SELECT @@gtid_executed shows: " + s.path("gtidExecuted").asText());
      }
    }
    return print(lines);
  }

  private static List<String> describe(JsonNode plan) {
    List<String> lines = new ArrayList<>();
    JsonNode s = plan.get("stop");
    JsonNode start = plan.get("start");
    lines.add(
        "Stop:  "
            + s.path("file").asText()
            + ":"
            + s.path("position").asLong()
            + " ("
            + s.path("reason").asText()
            + ")");
    lines.add(
        "       last transaction "
            + (s.path("lastGtid").isNull() ? "(anonymous)" : s.path("lastGtid").asText())
            + ", committed "
            + s.path("commitTime").asText());
    lines.add("       GTIDs executed at the stop: " + s.path("gtidExecuted").asText());
    lines.add(
        "Start: "
            + start.path("file").asText()
            + ":"
            + start.path("position").asLong()
            + " ("
            + start.path("reason").asText()
            + ")");
    List<List<String>> rows = new ArrayList<>();
    for (JsonNode f : plan.path("files")) {
      rows.add(
          List.of(
              f.path("name").asText(),
              HumanUnits.bytes(f.path("size")),
              f.path("from").asLong() + "-" + f.path("to").asLong(),
              HumanUnits.bytes(
                  (double) Math.max(0, f.path("to").asLong() - f.path("from").asLong()))));
    }
    lines.add(
        "Files: " + rows.size() + ", " + HumanUnits.bytes(plan.path("bytesToApply")) + " to apply");
    lines.addAll(table(List.of("FILE", "SIZE", "BYTES", "TO APPLY"), rows));
    return lines;
  }

  private static List<String> table(List<String> header, List<List<String>> rows) {
    int[] width = new int[header.size()];
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    for (List<String> row : all) {
      for (int i = 0; i < row.size(); i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    List<String> out = new ArrayList<>();
    for (List<String> row : all) {
      StringBuilder line = new StringBuilder(" ");
      for (int i = 0; i < row.size(); i++) {
        line.append(' ').append(row.get(i));
        if (i < row.size() - 1) {
          line.append(" ".repeat(width[i] - row.get(i).length() + 1));
        }
      }
      out.add(line.toString());
    }
    return out;
  }

  /** Downloads every file of the plan into {@link #write}, each up to its {@code to}. */
  private List<Path> download(JsonNode plan) {
    try {
      Files.createDirectories(write);
    } catch (IOException e) {
      throw new RelayctlException(
          Relayctl.RELAY_ERROR, "cannot create the directory " + write + ": " + e.getMessage());
    }
    List<Path> written = new ArrayList<>();
    for (JsonNode f : plan.path("files")) {
      String name = f.path("name").asText();
      if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.startsWith(".")) {
        throw new RelayctlException(
            Relayctl.RELAY_ERROR, "the relay's plan names a file '" + name + "' that is not safe");
      }
      long to = f.path("to").asLong();
      Path target = write.resolve(name);
      long got =
          client()
              .download(
                  "/api/v1/pitr/binlog?name="
                      + URLEncoder.encode(name, StandardCharsets.UTF_8)
                      + "&end="
                      + to,
                  target);
      if (got != to) {
        throw new RelayctlException(
            Relayctl.RELAY_ERROR,
            "downloaded " + got + " bytes of " + name + ", expected " + to + ": try again");
      }
      written.add(target);
    }
    return written;
  }

  /** The shell command that applies {@code files}, for the plan's flavour. */
  static String applyCommand(JsonNode plan, List<Path> files) {
    StringBuilder paths = new StringBuilder();
    for (Path f : files) {
      paths.append(' ').append(shellQuote(f.toString()));
    }
    if (plan.path("flavor").asText().equals("mysql")) {
      return "mysqlbinlog" + paths + " | mysql -u root -p";
    }
    long from = plan.path("start").path("position").asLong();
    return "mariadb-binlog"
        + (from > 4 ? " --start-position=" + from : "")
        + paths
        + " | mariadb -u root -p";
  }

  private static String shellQuote(String s) {
    return s.matches("[A-Za-z0-9_./:=+-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
  }

  /** A blank stop value is refused here, with a clear message, not by the relay. */
  private void validate() {
    String v =
        stop.untilTime != null
            ? stop.untilTime
            : stop.stopBeforeGtid != null ? stop.stopBeforeGtid : stop.stopAfterGtids;
    if (v.isBlank()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "the stop value is empty");
    }
  }
}
