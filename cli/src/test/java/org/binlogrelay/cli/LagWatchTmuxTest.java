package org.binlogrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relayctl lag --watch} in a real terminal: the relayctl main class runs in a tmux pane of
 * 80x24 (a private tmux server on its own socket) against {@link StubRelay}; after several
 * refreshes the pane, scrollback included, holds the table once with the newest values, the cursor
 * is hidden; Ctrl-C ends relayctl with exit code 0 and the cursor shown. The captured pane is
 * written to {@code target/lag-watch-pane.txt} (docs/relayctl.md shows one). Needs tmux (installed
 * on the build machines; scripts/provision-test-servers.sh).
 */
class LagWatchTmuxTest {
  private static final long WAIT_SECONDS = 60;

  @Test
  void drawsInPlaceInATerminalAndCtrlCExitsZero(@TempDir Path dir) throws Exception {
    Path socket = dir.resolve("tmux.sock");
    try (StubRelay stub =
        new StubRelay()
            .answer("GET", "/api/v1/lag", Contract.json("lag"))
            .answer("GET", "/api/v1/lag", Contract.json("lag-2"))) {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      String classpath =
          System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
      Path status = dir.resolve("exit-status");
      Path config = Files.writeString(dir.resolve("tmux.conf"), "set -g remain-on-exit on\n");
      tmux(
          socket,
          dir,
          "-f",
          config.toString(),
          "new-session",
          "-d",
          "-s",
          "watch",
          "-x",
          "80",
          "-y",
          "24",
          "-e",
          "COLUMNS=",
          "-e",
          "TERM=tmux-256color",
          "bash",
          "-c",
          "\"$@\"; echo $? > " + status,
          "relayctl",
          java,
          "-Xmx64m",
          "-XX:TieredStopAtLevel=1",
          "-cp",
          classpath,
          Relayctl.class.getName(),
          "--url",
          stub.url(),
          "lag",
          "--watch",
          "--interval",
          "200ms");
      Path bytes = dir.resolve("pane-output");
      tmux(socket, dir, "pipe-pane", "-t", "watch", "cat > " + bytes);
      try {
        await("four refreshes", () -> stub.count("GET", "/api/v1/lag") >= 4);
        int served = stub.count("GET", "/api/v1/lag");
        await("the frame after request " + served, () -> stub.count("GET", "/api/v1/lag") > served);
        String pane = tmux(socket, dir, "capture-pane", "-p", "-t", "watch");
        String history = tmux(socket, dir, "capture-pane", "-p", "-S", "-", "-t", "watch");
        Files.writeString(Path.of("target", "lag-watch-pane.txt"), pane.stripTrailing() + "\n");

        assertThat(
                pane.lines()
                    .filter(l -> l.startsWith("relayctl lag: every 0.2 s from " + stub.url())))
            .as(pane)
            .hasSize(1);
        assertThat(history.lines().filter(l -> l.startsWith("HOP ")))
            .as("one table in the scrollback too:\n" + history)
            .hasSize(1);
        assertThat(pane)
            .contains(
                "HOP                      STATE      LAG    BEHIND    SEND       CATCH-UP    ETA\n"
                    + "primary -> relay         STREAMING  1.2 s  -         -          -           -\n"
                    + "relay -> 101 (10.0.0.7)  SENDING    1.7 s  614 KiB   12 MiB/s   2.1 MiB/s   0:21\n"
                    + "relay -> 102 (10.0.0.8)  SENDING    38 s   20 MiB    4.0 MiB/s  4.0 MiB/s   0:05\n")
            .doesNotContain("3.4 s")
            .doesNotContain("PAUSED");
        assertThat(pane.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(80));
        assertThat(
                tmux(socket, dir, "display-message", "-p", "-t", "watch", "#{cursor_flag}").strip())
            .as("cursor hidden while watching")
            .isEqualTo("0");

        tmux(socket, dir, "send-keys", "-t", "watch", "C-c");
        // tmux 3.3 does not always record a dead pane's exit status, so bash writes it to a file.
        await("relayctl to exit after Ctrl-C", () -> readable(status).endsWith("\n"));
        assertThat(readable(status)).as("exit code after Ctrl-C").isEqualTo("0\n");
        // A dead pane's cursor flag is tmux's own, so the bytes relayctl wrote last tell whether it
        // showed the cursor.
        await("the pane's output to be piped", () -> readable(bytes).endsWith(Screen.SHOW_CURSOR));
        assertThat(readable(bytes).replace("\r\n", "\n"))
            .as("the last refresh redraws in place")
            .contains("\r\u001b[6A")
            .contains("0:05" + Screen.ERASE_LINE_END + "\n" + Screen.ERASE_BELOW);
      } finally {
        tmux(socket, dir, "kill-server");
      }
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    eventually(Duration.ofSeconds(WAIT_SECONDS), what, condition::getAsBoolean);
  }

  private static String readable(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Runs a tmux command on the private server; its standard output. */
  private static String tmux(Path socket, Path dir, String... args) {
    List<String> command = new ArrayList<>(List.of("tmux", "-S", socket.toString()));
    command.addAll(List.of(args));
    try {
      Path out = Files.createTempFile(dir, "tmux-", ".out");
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .start();
      if (!p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("tmux " + String.join(" ", args) + " did not finish");
      }
      String output = Files.readString(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0 && !args[0].equals("kill-server")) {
        throw new AssertionError("tmux " + String.join(" ", args) + " failed: " + output);
      }
      return output;
    } catch (IOException e) {
      throw new AssertionError("cannot run tmux (is it installed?): " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
