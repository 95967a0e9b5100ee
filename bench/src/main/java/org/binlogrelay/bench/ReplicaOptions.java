package org.binlogrelay.bench;

import org.binlogrelay.bench.client.SourceAddress;
import picocli.CommandLine.Option;

/**
 * {@code --replica-host --replica-port --replica-user --replica-password}: a replica server to
 * query.
 */
final class ReplicaOptions {
  @Option(
      names = "--replica-host",
      defaultValue = "127.0.0.1",
      description = "Replica host (default: " + "${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--replica-port", required = true, description = "Replica port.")
  int port;

  @Option(names = "--replica-user", description = "Replica user (default: the primary's --user).")
  String user;

  @Option(
      names = "--replica-password",
      description = "Replica password (default: the primary's --password).")
  String password;

  SourceAddress address(SourceAddress primary) {
    return new SourceAddress(
        host,
        port,
        user == null ? primary.user() : user,
        password == null ? primary.password() : password);
  }
}
