package org.binlogrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** Usage errors exit 2 with one line; --help has examples everywhere; --version; completion. */
class UsageTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "bogus",
        "--bogus status",
        "status extra",
        "status --wide",
        "replicas show",
        "lag --count 3",
        "lag --interval 1s",
        "lag --watch --interval 10ms",
        "lag --watch --count -1",
        "purge --before",
        "completion fish",
        "source change --port 3306"
      })
  void badUsageExitsWithTwoAndOneLine(String line) {
    Run.Result r = new Run().run(line.isEmpty() ? new String[0] : line.split(" "));
    assertThat(r.code()).as(r.toString()).isEqualTo(Relayctl.USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).startsWith("relayctl: ").endsWith(" --help')\n");
    assertThat(r.err().lines()).hasSize(1);
  }

  @Test
  void everyCommandHasHelpWithExamples() {
    List<String> commands = new ArrayList<>();
    collect(new CommandLine(new Relayctl()), commands);
    assertThat(commands)
        .contains(
            "relayctl",
            "relayctl status",
            "relayctl replicas show",
            "relayctl source change",
            "relayctl replica kick",
            "relayctl lag",
            "relayctl completion");
    for (String command : commands) {
      List<String> args =
          new ArrayList<>(List.of(command.split(" ")).subList(1, command.split(" ").length));
      args.add("--help");
      Run.Result r = new Run().run(args.toArray(String[]::new));
      assertThat(r.code()).as(command + " --help").isZero();
      assertThat(r.out())
          .as(command + " --help")
          .startsWith("Usage: " + command)
          .contains("\nExamples:\n  relayctl ");
      assertThat(r.out().lines().mapToInt(String::length).max().orElseThrow())
          .as(command + " --help width")
          .isLessThanOrEqualTo(80);
    }
  }

  private static void collect(CommandLine commandLine, List<String> into) {
    if (commandLine.getCommandName().equals("help")) {
      return;
    }
    into.add(commandLine.getCommandSpec().qualifiedName());
    commandLine.getSubcommands().values().forEach(sub -> collect(sub, into));
  }

  @Test
  void versionIsTheProjectVersion() {
    Run.Result r = new Run().run("--version");
    assertThat(r.code()).isZero();
    assertThat(r.out()).matches("relayctl \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(admin API v1\\)\n");
  }

  @Test
  void completionScriptCompletesEveryCommand() {
    Run.Result r = new Run().run("completion", "bash");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .startsWith("#!/usr/bin/env bash")
        .contains("complete -F _complete_relayctl")
        .contains(
            "status replicas binlogs archive gtid purge rotate source replica lag pitr bench completion")
        .contains("catchup fanout lag stop-catchup")
        .contains("--watch")
        .contains("pause resume kick");
  }
}
