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
@Command(
    name = "replicas",
    description = "Lists the connected replicas.",
    subcommands = ReplicasCommand.Show.class,
    footer = {
      "",
      "Examples:",
      "  relayctl replicas",
      "  relayctl replicas --wide",
      "  relayctl replicas show 3",
      "  relayctl replicas --json | jq '.[] | {serverId, secondsBehind}'"
    })
final class ReplicasCommand extends RelayCommand {
  @Mixin JsonOption json;

  @Option(
      names = {"-w", "--wide"},
      description = "More columns: user, mode, bytes sent, send rate, connected since.")
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
    Table table =
        wide
            ? Table.of(
                "ID",
                "SERVER ID",
                "HOST",
                "USER",
                "MODE",
                "STATE",
                "POSITION",
                "SENT",
                "BEHIND",
                "LAG",
                "SEND RATE",
                "CONNECTED (UTC)")
            : Table.of("ID", "SERVER ID", "HOST", "STATE", "POSITION", "BEHIND", "LAG");
    table.truncatable(2);
    for (AdminObjects.ReplicaObject r :
        AdminObjects.listOf(replicas, AdminObjects.ReplicaObject.class)) {
      if (wide) {
        table.row(
            HumanUnits.text(r.id()),
            HumanUnits.count(r.serverId()),
            HumanUnits.text(r.host()),
            HumanUnits.text(r.user()),
            HumanUnits.text(r.mode()),
            HumanUnits.text(r.state()),
            HumanUnits.position(r.position()),
            HumanUnits.bytes(r.bytesSent()),
            HumanUnits.bytes(r.bytesBehind()),
            HumanUnits.seconds(r.secondsBehind()),
            HumanUnits.rate(r.sendRateBytesPerSecond()),
            HumanUnits.time(r.connectedAt()));
      } else {
        table.row(
            HumanUnits.text(r.id()),
            HumanUnits.count(r.serverId()),
            HumanUnits.text(r.host()),
            HumanUnits.text(r.state()),
            HumanUnits.position(r.position()),
            HumanUnits.bytes(r.bytesBehind()),
            HumanUnits.seconds(r.secondsBehind()));
      }
    }
    return print(table.render(wide ? Integer.MAX_VALUE : width()));
  }

  /** {@code relayctl replicas show ID}. */
  @Command(
      name = "show",
      description = "Shows one replica in full.",
      footer = {"", "Examples:", "  relayctl replicas show 3", "  relayctl replicas show 3 --json"})
  static final class Show extends RelayCommand {
    @Parameters(
        paramLabel = "ID",
        description = "The replica's ID (first column of 'relayctl replicas').")
    String id;

    @Mixin JsonOption json;

    @Override
    public Integer call() {
      JsonNode replica =
          client().get("/api/v1/replicas/" + ReplicaCommand.pathId(spec.commandLine(), id));
      if (json.json) {
        return printJson(replica);
      }
      return print(describe(replica).render());
    }
  }

  static Description describe(JsonNode replica) {
    AdminObjects.ReplicaObject r = AdminObjects.of(replica, AdminObjects.ReplicaObject.class);
    String reported =
        HumanUnits.known(r.reportHost()) && !r.reportHost().asText().isEmpty()
            ? r.reportHost().asText() + ":" + HumanUnits.count(r.reportPort())
            : HumanUnits.UNKNOWN;
    return new Description()
        .field("ID", HumanUnits.text(r.id()))
        .field("Server ID", HumanUnits.count(r.serverId()))
        .field("Host", HumanUnits.text(r.host()))
        .field("Reported as", reported)
        .field("User", HumanUnits.text(r.user()))
        .field("UUID", HumanUnits.text(r.uuid()))
        .field("Mode", HumanUnits.text(r.mode()))
        .field(
            "State",
            HumanUnits.text(r.state())
                + (AdminObjects.path(r.paused()).asBoolean() ? " (paused)" : ""))
        .field("Connected", HumanUnits.time(r.connectedAt()))
        .field("Position", HumanUnits.position(r.position()))
        .field(
            "Sent",
            HumanUnits.bytes(r.bytesSent())
                + ", "
                + HumanUnits.count(r.eventsSent())
                + " events, "
                + HumanUnits.count(r.transactionsSent())
                + " transactions")
        .field(
            "Behind",
            HumanUnits.bytes(r.bytesBehind()) + ", " + HumanUnits.seconds(r.secondsBehind()))
        .field("Send rate", HumanUnits.rate(r.sendRateBytesPerSecond()))
        .field("Catch-up rate", HumanUnits.rate(r.catchUpRateBytesPerSecond()))
        .field("ETA", HumanUnits.eta(r.etaSeconds()))
        .field("Stalls", HumanUnits.count(r.stalls()));
  }

  static String summary(JsonNode replica) {
    AdminObjects.ReplicaObject r = AdminObjects.of(replica, AdminObjects.ReplicaObject.class);
    return "replica "
        + HumanUnits.text(r.id())
        + " (server_id "
        + HumanUnits.count(r.serverId())
        + ", "
        + HumanUnits.text(r.host())
        + ") is "
        + HumanUnits.text(r.state());
  }
}
