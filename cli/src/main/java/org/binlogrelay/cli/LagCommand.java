package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code relayctl lag [--watch [--interval D] [--count N]]}: {@code GET /api/v1/lag} as {@link
 * LagView}'s table, once or refreshed. With {@code --watch} on a terminal the table is redrawn in
 * place ({@link Screen}); elsewhere each refresh is printed after the last. Ctrl-C (SIGINT) or
 * SIGTERM ends a watch with exit code 0 and the cursor shown again. After the first answer, an
 * unreachable relay or an error shows in the frame and the watch goes on.
 */
@Command(
    name = "lag",
    description = {
      "Shows how far each hop is behind, once or live (--watch).",
      "",
      "One row per hop: primary to relay, and relay to each replica. On a terminal, --watch redraws the table "
          + "in place; into a file or a pipe it prints one table per refresh (with --json: one JSON document per "
          + "line)."
    },
    footer = {
      "",
      "Columns: LAG seconds behind; BEHIND bytes behind the relay's head; SEND bytes sent per second "
          + "(last 10 s); CATCH-UP how fast BEHIND shrinks (negative: it grows); ETA time until caught up.",
      "",
      "Examples:",
      "  relayctl lag",
      "  relayctl lag --watch",
      "  relayctl lag --watch --interval 5s",
      "  relayctl lag --watch --count 60 > lag.log",
      "  relayctl lag --watch --json | jq -c '.replicas[].etaSeconds'"
    })
final class LagCommand extends RelayCommand {
  static final String PATH = "/api/v1/lag";
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  @Option(
      names = {"-w", "--watch"},
      description = "Refresh until interrupted (Ctrl-C).")
  boolean watch;

  @Option(
      names = {"-i", "--interval"},
      paramLabel = "DURATION",
      defaultValue = "1s",
      converter = DurationConverter.class,
      description = "Time between refreshes with --watch (default ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(
      names = {"-n", "--count"},
      paramLabel = "N",
      defaultValue = "0",
      description = "With --watch, stop after N refreshes (default 0: never).")
  int count;

  @Mixin JsonOption json;

  @Override
  public Integer call() {
    if (!watch
        && (count != 0 || spec.commandLine().getParseResult().hasMatchedOption("--interval"))) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--interval and --count go with --watch");
    }
    if (interval.compareTo(Duration.ofMillis(100)) < 0 || count < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          count < 0 ? "--count must be 0 or more" : "--interval must be at least 100ms");
    }
    AdminClient client = client();
    if (!watch) {
      JsonNode lag = client.get(PATH);
      return json.json ? printJson(lag) : print(LagView.lines(lag, width()));
    }
    return watch(client);
  }

  private int watch(AdminClient client) {
    Environment environment = environment();
    Screen screen = new Screen(out(), environment.terminal().interactive() && !json.json);
    Thread restore =
        new Thread(
            () -> {
              screen.close();
              Runtime.getRuntime().halt(Relayctl.OK);
            },
            "relayctl-restore-terminal");
    Runtime.getRuntime().addShutdownHook(restore);
    try {
      String title =
          "relayctl lag: every " + HumanUnits.duration(interval) + " from " + client.base();
      for (int refresh = 1; count == 0 || refresh <= count; refresh++) {
        int width = environment.terminal().width();
        List<String> body;
        try {
          JsonNode lag = client.get(PATH);
          if (json.json) {
            out().println(lag.toString());
            out().flush();
            body = null;
          } else {
            body = LagView.lines(lag, width);
          }
        } catch (RelayctlException e) {
          if (refresh == 1) {
            throw e;
          }
          body = List.of("relayctl: " + e.getMessage());
        }
        if (body != null) {
          screen.draw(
              LagView.frame(title, CLOCK.format(environment.clock().instant()), body, width),
              width);
        }
        if (refresh == count) {
          break;
        }
        environment.pause().sleep(interval);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      screen.close();
      try {
        Runtime.getRuntime().removeShutdownHook(restore);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it restores the terminal and ends the process
      }
    }
    return Relayctl.OK;
  }
}
