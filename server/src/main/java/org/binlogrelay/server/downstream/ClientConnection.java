package org.binlogrelay.server.downstream;

import org.binlogrelay.server.downstream.sql.ClientContext;
import org.binlogrelay.server.downstream.sql.SessionVariables;

/**
 * The state of one logged-in connection that the command phase works with: who it is, what both
 * sides' capabilities allow, whether it is TLS, its session variables, its replica registration and
 * its process-list entry.
 *
 * <p>Not thread-safe: owned by the channel's event loop.
 */
final class ClientConnection {
  final long connectionId;
  final ClientContext client;
  final int capabilities;
  final boolean secure;
  final SessionVariables session = new SessionVariables();
  ReplicaRegistration registration;

  /** Its line in SHOW PROCESSLIST. */
  final ConnectionRegistry.Entry process;

  ClientConnection(
      long connectionId,
      ClientContext client,
      int capabilities,
      boolean secure,
      ConnectionRegistry.Entry process) {
    this.connectionId = connectionId;
    this.client = client;
    this.capabilities = capabilities;
    this.secure = secure;
    this.process = process;
  }
}
