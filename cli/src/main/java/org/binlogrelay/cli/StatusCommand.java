package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code relayctl status}: {@code GET /api/v1/status} as relay, upstream, store, archive (when the
 * relay has one) and replica sections.
 */
@Command(
    name = "status",
    description =
        "Shows the relay, its upstream connection, its store, its archive and its replica count.",
    footer = {
      "",
      "Examples:",
      "  relayctl status",
      "  relayctl status --json | jq .upstream.state"
    })
final class StatusCommand extends RelayCommand {
  @Mixin JsonOption json;

  @Override
  public Integer call() {
    JsonNode status = client().get("/api/v1/status");
    if (json.json) {
      return printJson(status);
    }
    AdminObjects.StatusObject answer = AdminObjects.of(status, AdminObjects.StatusObject.class);
    Description d = new Description();
    AdminObjects.RelayObject relay =
        AdminObjects.of(answer.relay(), AdminObjects.RelayObject.class);
    d.section("Relay")
        .field("State", HumanUnits.text(relay.state()))
        .field("Version", HumanUnits.text(relay.version()))
        .field("Flavor", HumanUnits.text(relay.flavor()))
        .field("Server ID", HumanUnits.count(relay.serverId()))
        .field("Server UUID", HumanUnits.text(relay.serverUuid()))
        .field("Replica address", HumanUnits.text(relay.replicaAddress()))
        .field(
            "Started",
            HumanUnits.time(relay.startedAt())
                + (HumanUnits.known(relay.uptimeSeconds())
                    ? " (up " + HumanUnits.seconds(relay.uptimeSeconds()) + ")"
                    : ""));
    if (HumanUnits.known(answer.upstream())) {
      SourceCommand.describe(d, answer.upstream());
    } else {
      d.section("Upstream").field("State", "none configured");
    }
    AdminObjects.StoreObject store =
        AdminObjects.of(answer.store(), AdminObjects.StoreObject.class);
    d.section("Store")
        .field("Condition", HumanUnits.text(store.condition()))
        .field("Data dir", HumanUnits.text(store.dataDir()))
        .field(
            "Files", HumanUnits.count(store.files()) + " (" + HumanUnits.bytes(store.bytes()) + ")")
        .field("Head", HumanUnits.position(store.head()))
        .field("Oldest event", HumanUnits.time(store.oldestEventAt()))
        .field("Executed GTIDs", GtidCommand.lines(store.executedGtids()))
        .field("Purged GTIDs", GtidCommand.lines(store.purgedGtids()));
    if (HumanUnits.known(store.lastError())) {
      d.field("Last error", store.lastError().asText());
    }
    if (HumanUnits.known(answer.archive())) {
      ArchiveCommand.summarize(d, answer.archive());
    }
    AdminObjects.ReplicaCountObject replicas =
        AdminObjects.of(answer.replicas(), AdminObjects.ReplicaCountObject.class);
    d.section("Replicas").field("Connected", HumanUnits.count(replicas.connected()));
    return print(d.render());
  }
}
