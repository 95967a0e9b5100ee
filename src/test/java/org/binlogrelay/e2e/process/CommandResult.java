package org.binlogrelay.e2e.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** A finished external command: its exit code and where its output is. */
public record CommandResult(List<String> command, int exitCode, Path outputFile, Duration elapsed) {

  public CommandResult {
    command = List.copyOf(command);
  }

  public String output() {
    try {
      return Files.readString(outputFile);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the output of " + String.join(" ", command) + " from " + outputFile, e);
    }
  }

  /** Throws, with the tail of the output, unless the command exited with 0. */
  public CommandResult requireSuccess(String what) {
    if (exitCode != 0) {
      throw new IllegalStateException(
          what
              + " failed with exit code "
              + exitCode
              + ": "
              + String.join(" ", command)
              + "\n"
              + Tails.of(outputFile, 40));
    }
    return this;
  }
}
