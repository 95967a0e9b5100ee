package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code relayctl gtid}: {@code GET /api/v1/gtid}, the stored GTID state. */
@Command(
    name = "gtid",
    description = "Shows the GTIDs the relay has stored (executed) and removed (purged).",
    footer = {"", "Examples:", "  relayctl gtid", "  relayctl gtid --json | jq -r .executed"})
final class GtidCommand extends RelayCommand {
  @Mixin JsonOption json;

  @Override
  public Integer call() {
    JsonNode gtid = client().get("/api/v1/gtid");
    if (json.json) {
      return printJson(gtid);
    }
    AdminObjects.GtidObject g = AdminObjects.of(gtid, AdminObjects.GtidObject.class);
    return print(
        new Description()
            .field("Flavor", HumanUnits.text(g.flavor()))
            .field("Executed", lines(g.executed()))
            .field("Purged", lines(g.purged()))
            .render());
  }

  /**
   * A GTID set with one source (MySQL UUID, MariaDB domain) per line, as MySQL's SHOW output breaks
   * it.
   */
  static String lines(JsonNode set) {
    if (!HumanUnits.known(set)) {
      return HumanUnits.UNKNOWN;
    }
    String text = set.asText().replaceAll("\\s+", "");
    return text.isEmpty() ? "(empty)" : text.replace(",", ",\n");
  }
}
