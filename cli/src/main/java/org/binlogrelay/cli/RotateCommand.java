package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code relayctl rotate}: {@code POST /api/v1/binlogs/rotate}, FLUSH BINARY LOGS on the primary.
 */
@Command(
    name = "rotate",
    description = {
      "Starts a new binlog file (FLUSH BINARY LOGS on the primary).",
      "",
      "Runs FLUSH BINARY LOGS on the primary and waits until the relay stored the new file. The relay's files "
          + "stay byte-identical to the primary's, so it cannot rotate on its own; the relay's account on the "
          + "primary needs the RELOAD privilege."
    },
    footer = {"", "Examples:", "  relayctl rotate"})
final class RotateCommand extends RelayCommand {
  @Mixin JsonOption json;

  @Override
  public Integer call() {
    JsonNode answer = client().post("/api/v1/binlogs/rotate", null);
    if (json.json) {
      return printJson(answer);
    }
    AdminObjects.RotatedObject rotated = AdminObjects.of(answer, AdminObjects.RotatedObject.class);
    return print(
        List.of("Rotated: the relay now stores " + HumanUnits.text(rotated.rotatedTo()) + "."));
  }
}
