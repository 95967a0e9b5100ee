package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code relayctl source [stop|start|change]}: the relay's upstream connection to its primary
 * ({@code GET /api/v1/upstream}, {@code POST /api/v1/upstream/stop|start|change}).
 */
@Command(
    name = "source",
    description = {
      "Shows, stops, starts or changes the primary the relay follows.",
      "",
      "Without a subcommand, shows the upstream connection."
    },
    subcommands = {SourceCommand.Stop.class, SourceCommand.Start.class, SourceCommand.Change.class},
    footer = {
      "",
      "Examples:",
      "  relayctl source",
      "  relayctl source stop",
      "  relayctl source start",
      "  relayctl source change --host db2.example --port 3306"
    })
final class SourceCommand extends RelayCommand {
  @Mixin JsonOption json;

  @Override
  public Integer call() {
    JsonNode upstream = client().get("/api/v1/upstream");
    if (json.json) {
      return printJson(upstream);
    }
    Description d = new Description();
    describe(d, upstream);
    return print(d.render());
  }

  static void describe(Description d, JsonNode upstream) {
    AdminObjects.UpstreamObject u = AdminObjects.of(upstream, AdminObjects.UpstreamObject.class);
    String primary =
        HumanUnits.text(u.primaryVersion())
            + (HumanUnits.known(u.primaryServerId())
                ? ", server_id " + u.primaryServerId().asText()
                : "");
    d.section("Upstream")
        .field(
            "State",
            HumanUnits.text(u.state())
                + (HumanUnits.known(u.since()) ? " since " + HumanUnits.time(u.since()) : ""))
        .field("Source", HumanUnits.text(u.source()))
        .field("Primary", primary)
        .field("TLS", yesNo(u.tls()))
        .field("Semi-sync", yesNo(u.semiSync()))
        .field("Position", HumanUnits.position(u.position()))
        .field("Last GTID", HumanUnits.text(u.lastGtid()))
        .field("Behind", HumanUnits.seconds(u.secondsBehind()))
        .field(
            "Received",
            HumanUnits.bytes(u.bytesReceived())
                + ", "
                + HumanUnits.count(u.eventsReceived())
                + " events, "
                + HumanUnits.count(u.transactionsReceived())
                + " transactions")
        .field("Last event", HumanUnits.time(u.lastEventAt()))
        .field(
            "Connections",
            HumanUnits.count(u.connections())
                + (AdminObjects.path(u.attempt()).asLong() > 0
                    ? " (retry " + u.attempt().asText() + ")"
                    : ""));
    if (HumanUnits.known(u.lastError())) {
      d.field("Last error", u.lastError().asText());
    }
  }

  static String summary(JsonNode upstream) {
    AdminObjects.UpstreamObject u = AdminObjects.of(upstream, AdminObjects.UpstreamObject.class);
    return "upstream " + HumanUnits.text(u.state()) + ", source " + HumanUnits.text(u.source());
  }

  private static String yesNo(JsonNode flag) {
    return HumanUnits.known(flag) ? (flag.asBoolean() ? "yes" : "no") : HumanUnits.UNKNOWN;
  }

  abstract static class Action extends RelayCommand {
    @Mixin JsonOption json;

    abstract String action();

    ObjectNode body() {
      return null;
    }

    @Override
    public Integer call() {
      ObjectNode body = body();
      JsonNode upstream = client().post("/api/v1/upstream/" + action(), body);
      if (json.json) {
        return printJson(upstream);
      }
      return print(List.of(summary(upstream)));
    }
  }

  @Command(
      name = "stop",
      description = "Stops following the primary (replicas keep being served what is stored).",
      footer = {"", "Examples:", "  relayctl source stop"})
  static final class Stop extends Action {
    @Override
    String action() {
      return "stop";
    }
  }

  @Command(
      name = "start",
      description = "Starts following the primary again (also after the upstream FAILED).",
      footer = {"", "Examples:", "  relayctl source start"})
  static final class Start extends Action {
    @Override
    String action() {
      return "start";
    }
  }

  @Command(
      name = "change",
      description = {
        "Switches the relay to another primary by GTID.",
        "",
        "For example after a failover. Refused if the new primary lacks transactions the relay stored. "
            + "Omitted options keep their values."
      },
      footer = {
        "",
        "Examples:",
        "  relayctl source change --host db2.example --port 3306",
        "  relayctl source change --host db2.example --user repl --password-file /etc/binlog-relay/db2-password"
      })
  static final class Change extends Action {
    @Option(
        names = "--host",
        required = true,
        paramLabel = "HOST",
        description = "The new primary's host.")
    String host;

    @Option(names = "--port", paramLabel = "PORT", description = "Its port (default: unchanged).")
    Integer port;

    @Option(
        names = "--user",
        paramLabel = "USER",
        description = "The replication user (default: unchanged).")
    String user;

    @Option(
        names = "--password-file",
        paramLabel = "FILE",
        description =
            "File whose first line is the user's password (default: unchanged). Never printed.")
    Path passwordFile;

    @Override
    String action() {
      return "change";
    }

    @Override
    ObjectNode body() {
      if (host.isBlank()) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--host must not be empty");
      }
      if (port != null && (port < 1 || port > 65535)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--port " + port + " is not between 1 and 65535");
      }
      ObjectNode body = AdminClient.JSON.createObjectNode().put("host", host);
      if (port != null) {
        body.put("port", port);
      }
      if (user != null) {
        body.put("user", user);
      }
      if (passwordFile != null) {
        body.put("password", password());
      }
      return body;
    }

    private String password() {
      try {
        List<String> lines = Files.readAllLines(passwordFile, StandardCharsets.UTF_8);
        String first = lines.isEmpty() ? "" : lines.get(0);
        return first.endsWith("\r") ? first.substring(0, first.length() - 1) : first;
      } catch (IOException e) {
        throw new RelayctlException(
            Relayctl.USAGE, "--password-file " + passwordFile + ": " + Relayctl.reason(e));
      }
    }
  }
}
