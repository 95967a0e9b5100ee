package org.binlogrelay.server.upstream;

import java.io.IOException;
import org.binlogrelay.storage.Position;

/**
 * Turns the configured {@link StartPosition} into the file an empty store starts with, by asking
 * the primary (see {@link StartPosition} for each rule). One use, on the session's thread.
 */
final class StartResolver {

  /**
   * Finds where a replica that executed some GTIDs starts (a GTID dump on a connection of its own).
   */
  @FunctionalInterface
  interface GtidLocator {
    Position locate(String gtids) throws IOException;
  }

  private final PrimaryConnection connection;
  private final PrimaryFlavor flavor;
  private final GtidLocator gtidLocator;

  StartResolver(PrimaryConnection connection, PrimaryFlavor flavor, GtidLocator gtidLocator) {
    this.connection = connection;
    this.flavor = flavor;
    this.gtidLocator = gtidLocator;
  }

  Position resolve(StartPosition start) throws IOException {
    if (start instanceof StartPosition.File f) {
      return Position.startOf(f.file());
    }
    if (start instanceof StartPosition.Gtids g) {
      return gtidLocator.locate(g.gtids());
    }
    if (start instanceof StartPosition.Current) {
      ResultRows status = connection.query(flavor.binlogStatusStatement());
      if (status.isEmpty()) {
        throw new FatalUpstreamException(
            "primary "
                + connection.address()
                + " reports no current binlog ('"
                + flavor.binlogStatusStatement()
                + "' is empty): binary logging is off there");
      }
      return Position.startOf(status.value(0, "File"));
    }
    ResultRows logs = connection.query("SHOW BINARY LOGS");
    if (logs.isEmpty()) {
      throw new FatalUpstreamException(
          "primary "
              + connection.address()
              + " lists no binlog files (SHOW BINARY"
              + " LOGS is empty)");
    }
    return Position.startOf(logs.value(0, "Log_name"));
  }
}
