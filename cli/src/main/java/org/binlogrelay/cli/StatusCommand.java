package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code relayctl status}: {@code GET /api/v1/status} as relay, upstream, store and replica sections. */
@Command(name = "status", description = "Shows the relay, its upstream connection, its store and its replica count.",
    footer = {"", "Examples:", "  relayctl status", "  relayctl status --json | jq .upstream.state"})
final class StatusCommand extends RelayCommand {
  @Mixin
  JsonOption json;

  @Override
  public Integer call() {
    JsonNode status = client().get("/api/v1/status");
    if (json.json) {
      return printJson(status);
    }
    Description d = new Description();
    JsonNode relay = status.path("relay");
    d.section("Relay")
        .field("State", HumanUnits.text(relay.get("state")))
        .field("Version", HumanUnits.text(relay.get("version")))
        .field("Flavor", HumanUnits.text(relay.get("flavor")))
        .field("Server ID", HumanUnits.count(relay.get("serverId")))
        .field("Server UUID", HumanUnits.text(relay.get("serverUuid")))
        .field("Replica address", HumanUnits.text(relay.get("replicaAddress")))
        .field("Started", HumanUnits.time(relay.get("startedAt"))
            + (HumanUnits.known(relay.get("uptimeSeconds"))
                ? " (up " + HumanUnits.seconds(relay.get("uptimeSeconds")) + ")" : ""));
    JsonNode upstream = status.get("upstream");
    if (HumanUnits.known(upstream)) {
      SourceCommand.describe(d, upstream);
    } else {
      d.section("Upstream").field("State", "none configured");
    }
    JsonNode store = status.path("store");
    d.section("Store")
        .field("Condition", HumanUnits.text(store.get("condition")))
        .field("Data dir", HumanUnits.text(store.get("dataDir")))
        .field("Files", HumanUnits.count(store.get("files")) + " (" + HumanUnits.bytes(store.get("bytes")) + ")")
        .field("Head", HumanUnits.position(store.get("head")))
        .field("Oldest event", HumanUnits.time(store.get("oldestEventAt")))
        .field("Executed GTIDs", GtidCommand.lines(store.get("executedGtids")))
        .field("Purged GTIDs", GtidCommand.lines(store.get("purgedGtids")));
    if (HumanUnits.known(store.get("lastError"))) {
      d.field("Last error", store.get("lastError").asText());
    }
    d.section("Replicas").field("Connected", HumanUnits.count(status.path("replicas").get("connected")));
    return print(d.render());
  }
}
