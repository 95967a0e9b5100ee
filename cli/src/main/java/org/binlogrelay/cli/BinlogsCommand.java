package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code relayctl binlogs}: {@code GET /api/v1/binlogs}, the stored files oldest first. */
@Command(
    name = "binlogs",
    description = "Lists the stored binlog files, oldest first, like SHOW BINARY LOGS.",
    footer = {
      "",
      "Examples:",
      "  relayctl binlogs",
      "  relayctl binlogs --json | jq -r '.[] | select(.readers > 0) | .name'"
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
    Table table =
        Table.of("NAME", "SIZE", "FIRST EVENT (UTC)", "LAST EVENT (UTC)", "READERS").truncatable(0);
    long bytes = 0;
    List<String> open = new ArrayList<>();
    for (AdminObjects.BinlogObject file :
        AdminObjects.listOf(binlogs, AdminObjects.BinlogObject.class)) {
      table.row(
          HumanUnits.text(file.name()),
          HumanUnits.bytes(file.size()),
          HumanUnits.time(file.firstEventAt()),
          HumanUnits.time(file.lastEventAt()),
          HumanUnits.count(file.readers()));
      bytes += AdminObjects.path(file.size()).asLong();
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
            + (open.isEmpty() ? "" : "; being written: " + String.join(", ", open)));
    return print(lines);
  }
}
