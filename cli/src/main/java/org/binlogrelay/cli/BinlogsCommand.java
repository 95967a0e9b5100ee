package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code relayctl binlogs}: {@code GET /api/v1/binlogs}, the files the relay serves oldest first,
 * with the tier each is in ({@code local}, {@code local,archive}, {@code archive}).
 */
@Command(
    name = "binlogs",
    description = {
      "Lists the binlog files the relay serves, oldest first, like SHOW BINARY LOGS.",
      "",
      "With an archive, TIER: local (data directory only), local,archive (also",
      "archived), archive (archived only: fetched into the cache when read)."
    },
    footer = {
      "",
      "Examples:",
      "  relayctl binlogs",
      "  relayctl binlogs --json | jq -r '.[] | select(.readers > 0) | .name'",
      "  relayctl binlogs --json | jq -r '.[] | select(.tier == \"local\") | .name'"
    })
final class BinlogsCommand extends RelayCommand {
  @Mixin JsonOption json;

  @Override
  public Integer call() {
    JsonNode binlogs = client().get("/api/v1/binlogs");
    if (json.json) {
      return printJson(binlogs);
    }
    if (!binlogs.isArray() || binlogs.isEmpty()) {
      return print(List.of("No binlog files stored."));
    }
    List<AdminObjects.BinlogObject> files =
        AdminObjects.listOf(binlogs, AdminObjects.BinlogObject.class);
    // the TIER column only with an archive (a file in it): without one every file is local
    boolean tiers =
        files.stream()
            .map(f -> AdminObjects.path(f.tier()).asText(""))
            .anyMatch(t -> !t.isEmpty() && !t.equals("local"));
    Table table =
        tiers
            ? Table.of("NAME", "SIZE", "FIRST EVENT (UTC)", "LAST EVENT (UTC)", "READERS", "TIER")
            : Table.of("NAME", "SIZE", "FIRST EVENT (UTC)", "LAST EVENT (UTC)", "READERS");
    table.truncatable(0);
    long bytes = 0;
    int archiveOnly = 0;
    List<String> open = new ArrayList<>();
    for (AdminObjects.BinlogObject file : files) {
      List<String> row =
          new ArrayList<>(
              List.of(
                  HumanUnits.text(file.name()),
                  HumanUnits.bytes(file.size()),
                  HumanUnits.time(file.firstEventAt()),
                  HumanUnits.time(file.lastEventAt()),
                  HumanUnits.count(file.readers())));
      if (tiers) {
        row.add(HumanUnits.text(file.tier()));
      }
      table.row(row.toArray(String[]::new));
      bytes += AdminObjects.path(file.size()).asLong();
      if (AdminObjects.path(file.tier()).asText().equals("archive")) {
        archiveOnly++;
      }
      if (AdminObjects.path(file.open()).asBoolean()) {
        open.add(AdminObjects.path(file.name()).asText());
      }
    }
    List<String> lines = new ArrayList<>(table.render(width()));
    lines.add("");
    lines.add(
        binlogs.size()
            + (binlogs.size() == 1 ? " file, " : " files, ")
            + HumanUnits.bytes((double) bytes)
            + (archiveOnly == 0 ? "" : " (" + archiveOnly + " only in the archive)")
            + (open.isEmpty() ? "" : "; being written: " + String.join(", ", open)));
    return print(lines);
  }
}
