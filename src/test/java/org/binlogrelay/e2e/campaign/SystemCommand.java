package org.binlogrelay.e2e.campaign;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Test side: a short command of the host ({@code mount}, {@code kill -s STOP}) run to completion
 * within 60 s; a non-zero exit or a timeout fails the test with the command and its output.
 */
final class SystemCommand {
  private SystemCommand() {}

  /** Runs {@code command}; returns its output (stdout and stderr), stripped. */
  static String run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not finish in 60 s");
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (p.exitValue() != 0) {
        throw new AssertionError(
            String.join(" ", command) + " exited with " + p.exitValue() + ": " + out);
      }
      return out;
    } catch (IOException e) {
      throw new AssertionError(
          "cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted running " + String.join(" ", command), e);
    }
  }
}
