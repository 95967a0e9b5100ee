package org.binlogrelay.bench;

import org.binlogrelay.bench.client.SourceAddress;
import picocli.CommandLine.Option;

/** {@code --host --port --user --password}: the source the replica clients connect to. */
final class SourceOptions {
  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Source host (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(
      names = {"-P", "--port"},
      defaultValue = "3306",
      description = "Source port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = {"-u", "--user"},
      defaultValue = "repl",
      description =
          "User with REPLICATION SLAVE and REPLICATION CLIENT (default: ${DEFAULT-VALUE}).")
  String user;

  @Option(
      names = {"-p", "--password"},
      defaultValue = "${env:RELAY_BENCH_PASSWORD:-}",
      description = "Password (default: $RELAY_BENCH_PASSWORD, else none).")
  String password;

  SourceAddress address() {
    return new SourceAddress(host, port, user, password);
  }
}
