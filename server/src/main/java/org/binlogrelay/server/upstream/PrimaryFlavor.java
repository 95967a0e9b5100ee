package org.binlogrelay.server.upstream;

import java.io.IOException;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.Position;

/**
 * What differs between a MySQL and a MariaDB primary, as far as a replica's connection goes (STYLE.md
 * section 4): session variables, the dump command, the status statement and how a GTID start is asked for.
 * Chosen once per connection from the handshake's version string ({@link #of}); stateless.
 */
interface PrimaryFlavor {

  /** MariaDB's handshake version contains "MariaDB" (e.g. {@code 5.5.5-10.11.19-MariaDB}); anything else is MySQL. */
  static PrimaryFlavor of(String serverVersion) {
    return serverVersion.contains("MariaDB") ? new MariadbPrimary() : new MysqlPrimary(serverVersion);
  }

  GtidFlavor gtidFlavor();

  /** The statement whose first row has the current binlog's {@code File} and {@code Position}. */
  String binlogStatusStatement();

  /** Flavour-specific session variables a replica sets before registering and dumping. */
  void prepareSession(PrimaryConnection connection, UpstreamConfig config) throws IOException;

  /** Sends the command that starts the dump at {@code start} (does not read the answer: the stream follows). */
  void requestDump(PrimaryConnection connection, Position start, long serverId) throws IOException;

  /**
   * Sends the command that starts a dump for a replica that executed {@code gtids} (the server picks the file;
   * its artificial ROTATE names it). Only used to resolve {@link StartPosition.Gtids}.
   *
   * @throws FatalUpstreamException if {@code gtids} is not valid text for this flavour
   */
  void requestGtidDump(PrimaryConnection connection, String gtids, long serverId) throws IOException;
}
