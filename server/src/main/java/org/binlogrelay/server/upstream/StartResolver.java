package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.util.Optional;
import org.binlogrelay.storage.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the configured {@link StartPosition} into the file an empty store starts with, by asking
 * the primary (see {@link StartPosition} for each rule). One use, on the session's thread.
 */
final class StartResolver {
  private static final Logger LOG = LoggerFactory.getLogger(StartResolver.class);

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
    if (start instanceof StartPosition.AfterArchive a) {
      return afterArchive(a);
    }
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

  /**
   * The archive's end if it holds anything (the configured start must agree with it), else the
   * configured start.
   *
   * @throws IOException if the archive cannot be listed (transient: the upstream retries)
   * @throws FatalUpstreamException if the configured start disagrees with the archive
   */
  private Position afterArchive(StartPosition.AfterArchive a) throws IOException {
    Optional<String> next = a.end().nextFile();
    if (next.isEmpty()) {
      LOG.info(
          "the store and the archive {} are empty: starting at {}",
          a.end().location(),
          a.configured());
      return resolve(a.configured());
    }
    String file = next.get();
    StartPosition configured = a.configured();
    if (configured instanceof StartPosition.File f && !f.file().equals(file)) {
      throw new FatalUpstreamException(
          "--start file:"
              + f.file()
              + " disagrees with the archive "
              + a.end().location()
              + ", which continues at "
              + file
              + ":4 (the file after its newest one): an empty store with an archive continues the"
              + " archive, with no gap and no duplicate; remove --start or give --start file:"
              + file);
    }
    if (configured instanceof StartPosition.Gtids || configured instanceof StartPosition.Current) {
      throw new FatalUpstreamException(
          "--start "
              + configured
              + " cannot apply: the archive "
              + a.end().location()
              + " holds binlogs and continues at "
              + file
              + ":4, where an empty store with an archive starts (no gap, no duplicate); remove"
              + " --start or give --start file:"
              + file);
    }
    LOG.info(
        "empty store, archive {} not empty: continuing the archive at {}:4",
        a.end().location(),
        file);
    return Position.startOf(file);
  }
}
