package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code relayctl replica pause|resume|kick ID}: {@code POST /api/v1/replicas/{id}/pause}, {@code
 * /resume}, {@code /kick}.
 */
@Command(
    name = "replica",
    description = "Pauses, resumes or disconnects one replica's feed.",
    subcommands = {
      ReplicaCommand.Pause.class,
      ReplicaCommand.Resume.class,
      ReplicaCommand.Kick.class
    },
    footer = {
      "",
      "Examples:",
      "  relayctl replica pause 3",
      "  relayctl replica resume 3",
      "  relayctl replica kick 3"
    })
final class ReplicaCommand extends RelayCommand {
  private static final String ID_FORM = "[A-Za-z0-9._:-]{1,64}";

  @Override
  public Integer call() {
    throw new CommandLine.ParameterException(spec.commandLine(), "say pause, resume or kick");
  }

  /**
   * The ID checked for use in a path (the relay's IDs are short words); a usage error otherwise.
   */
  static String pathId(CommandLine commandLine, String id) {
    if (id == null || !id.matches(ID_FORM)) {
      throw new CommandLine.ParameterException(
          commandLine, "'" + id + "' is not a replica ID; " + "'relayctl replicas' lists them");
    }
    return id;
  }

  abstract static class Action extends RelayCommand {
    @Parameters(
        paramLabel = "ID",
        description = "The replica's ID (first column of 'relayctl replicas').")
    String id;

    @Mixin JsonOption json;

    abstract String action();

    @Override
    public Integer call() {
      JsonNode answer =
          client()
              .post("/api/v1/replicas/" + pathId(spec.commandLine(), id) + "/" + action(), null);
      if (json.json) {
        return printJson(answer);
      }
      return print(List.of(render(answer)));
    }

    String render(JsonNode replica) {
      return ReplicasCommand.summary(replica);
    }
  }

  @Command(
      name = "pause",
      description = {
        "Stops sending to one replica.",
        "",
        "Heartbeats stop too, like a stalled network. Its lag grows until 'relayctl replica resume'."
      },
      footer = {"", "Examples:", "  relayctl replica pause 3"})
  static final class Pause extends Action {
    @Override
    String action() {
      return "pause";
    }
  }

  @Command(
      name = "resume",
      description = "Sends to a paused replica again.",
      footer = {"", "Examples:", "  relayctl replica resume 3"})
  static final class Resume extends Action {
    @Override
    String action() {
      return "resume";
    }
  }

  @Command(
      name = "kick",
      description = {
        "Closes one replica's connection.",
        "",
        "A replica whose IO thread runs reconnects by itself (and gets a new ID)."
      },
      footer = {"", "Examples:", "  relayctl replica kick 3"})
  static final class Kick extends Action {
    @Override
    String action() {
      return "kick";
    }

    @Override
    String render(JsonNode answer) {
      return "Disconnected replica "
          + HumanUnits.text(AdminObjects.of(answer, AdminObjects.KickedObject.class).kicked())
          + ".";
    }
  }
}
