package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code relayctl replicas}: {@code GET /api/v1/replicas} as a table; {@code replicas show ID}:
 * {@code GET /api/v1/replicas/{id}} in full.
 */
@Command(name = "replicas", description = "Lists the connected replicas.",
    subcommands = ReplicasCommand.Show.class,
    footer = {"", "Examples:", "  relayctl replicas", "  relayctl replicas --wide", "  relayctl replicas show 3",
        "  relayctl replicas --json | jq '.[] | {serverId, secondsBehind}'"})
final class ReplicasCommand extends RelayCommand {
  @Mixin
  JsonOption json;

  @Option(names = {"-w", "--wide"}, description = "More columns: user, mode, bytes sent, send rate, connected since.")
  boolean wide;

  @Override
  public Integer call() {
    JsonNode replicas = client().get("/api/v1/replicas");
    if (json.json) {
      return printJson(replicas);
    }
    if (!replicas.isArray() || replicas.isEmpty()) {
      return print(List.of("No replicas connected."));
    }
    Table table = wide
        ? Table.of("ID", "SERVER ID", "HOST", "USER", "MODE", "STATE", "POSITION", "SENT", "BEHIND", "LAG",
            "SEND RATE", "CONNECTED (UTC)")
        : Table.of("ID", "SERVER ID", "HOST", "STATE", "POSITION", "BEHIND", "LAG");
    table.truncatable(2);
    for (JsonNode r : replicas) {
      if (wide) {
        table.row(HumanUnits.text(r.get("id")), HumanUnits.count(r.get("serverId")), HumanUnits.text(r.get("host")),
            HumanUnits.text(r.get("user")), HumanUnits.text(r.get("mode")), HumanUnits.text(r.get("state")),
            HumanUnits.position(r.get("position")), HumanUnits.bytes(r.get("bytesSent")),
            HumanUnits.bytes(r.get("bytesBehind")), HumanUnits.seconds(r.get("secondsBehind")),
            HumanUnits.rate(r.get("sendRateBytesPerSecond")), HumanUnits.time(r.get("connectedAt")));
      } else {
        table.row(HumanUnits.text(r.get("id")), HumanUnits.count(r.get("serverId")), HumanUnits.text(r.get("host")),
            HumanUnits.text(r.get("state")), HumanUnits.position(r.get("position")),
            HumanUnits.bytes(r.get("bytesBehind")), HumanUnits.seconds(r.get("secondsBehind")));
      }
    }
    return print(table.render(wide ? Integer.MAX_VALUE : width()));
  }

  /** {@code relayctl replicas show ID}. */
  @Command(name = "show", description = "Shows one replica in full.",
      footer = {"", "Examples:", "  relayctl replicas show 3", "  relayctl replicas show 3 --json"})
  static final class Show extends RelayCommand {
    @Parameters(paramLabel = "ID", description = "The replica's ID (first column of 'relayctl replicas').")
    String id;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() {
      JsonNode replica = client().get("/api/v1/replicas/" + ReplicaCommand.pathId(spec.commandLine(), id));
      if (json.json) {
        return printJson(replica);
      }
      return print(describe(replica).render());
    }
  }

  static Description describe(JsonNode r) {
    String reported = HumanUnits.known(r.get("reportHost")) && !r.get("reportHost").asText().isEmpty()
        ? r.get("reportHost").asText() + ":" + HumanUnits.count(r.get("reportPort")) : HumanUnits.UNKNOWN;
    return new Description()
        .field("ID", HumanUnits.text(r.get("id")))
        .field("Server ID", HumanUnits.count(r.get("serverId")))
        .field("Host", HumanUnits.text(r.get("host")))
        .field("Reported as", reported)
        .field("User", HumanUnits.text(r.get("user")))
        .field("UUID", HumanUnits.text(r.get("uuid")))
        .field("Mode", HumanUnits.text(r.get("mode")))
        .field("State", HumanUnits.text(r.get("state")) + (r.path("paused").asBoolean() ? " (paused)" : ""))
        .field("Connected", HumanUnits.time(r.get("connectedAt")))
        .field("Position", HumanUnits.position(r.get("position")))
        .field("Sent", HumanUnits.bytes(r.get("bytesSent")) + ", " + HumanUnits.count(r.get("eventsSent"))
            + " events, " + HumanUnits.count(r.get("transactionsSent")) + " transactions")
        .field("Behind", HumanUnits.bytes(r.get("bytesBehind")) + ", " + HumanUnits.seconds(r.get("secondsBehind")))
        .field("Send rate", HumanUnits.rate(r.get("sendRateBytesPerSecond")))
        .field("Catch-up rate", HumanUnits.rate(r.get("catchUpRateBytesPerSecond")))
        .field("ETA", HumanUnits.eta(r.get("etaSeconds")))
        .field("Stalls", HumanUnits.count(r.get("stalls")));
  }

  static String summary(JsonNode r) {
    return "replica " + HumanUnits.text(r.get("id")) + " (server_id " + HumanUnits.count(r.get("serverId")) + ", "
        + HumanUnits.text(r.get("host")) + ") is " + HumanUnits.text(r.get("state"));
  }
}
