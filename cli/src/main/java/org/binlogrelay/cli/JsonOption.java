package org.binlogrelay.cli;

import picocli.CommandLine.Option;

/** The {@code --json} option every command that prints something has. */
final class JsonOption {
  @Option(
      names = "--json",
      description = "Print the relay's JSON answer as it is (pretty-printed), for scripts.")
  boolean json;
}
