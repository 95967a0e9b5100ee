package org.binlogrelay.server.upstream;

import java.io.IOException;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.storage.Position;

/**
 * What differs between a MySQL and a MariaDB primary, as far as a replica's connection goes
 * (STYLE.md section 4): session variables, the dump command, the status statement, how a GTID start
 * is asked for, semi-synchronous replication, the executed GTIDs, and the event that lists the
 * GTIDs before a binlog file. Chosen once per connection from the handshake's version string
 * ({@link #of}); stateless.
 */
interface PrimaryFlavor {

  /**
   * MariaDB's handshake version contains "MariaDB" (e.g. {@code 5.5.5-10.11.19-MariaDB}); anything
   * else is MySQL.
   */
  static PrimaryFlavor of(String serverVersion) {
    return serverVersion.contains("MariaDB")
        ? new MariadbPrimaryFlavor()
        : new MysqlPrimaryFlavor(serverVersion);
  }

  GtidFlavor gtidFlavor();

  /** The statement whose first row has the current binlog's {@code File} and {@code Position}. */
  String binlogStatusStatement();

  /** Flavour-specific session variables a replica sets before registering and dumping. */
  void prepareSession(PrimaryConnection connection, UpstreamConfig config) throws IOException;

  /**
   * Sends the command that starts the dump at {@code start} (does not read the answer: the stream
   * follows).
   */
  void requestDump(PrimaryConnection connection, Position start, long serverId) throws IOException;

  /**
   * Sends the command that starts a dump for a replica that executed {@code gtids} (the server
   * picks the file; its artificial ROTATE names it). Only used to resolve {@link
   * StartPosition.Gtids}.
   *
   * @throws FatalUpstreamException if {@code gtids} is not valid text for this flavour
   */
  void requestGtidDump(PrimaryConnection connection, String gtids, long serverId)
      throws IOException;

  /**
   * Asks the primary for semi-synchronous replication, as the server's own replica plugin does: if
   * the primary has the source side (its enabled variable exists), sets the session variable its
   * dump thread reads. From the dump on, every event packet then carries the semi-sync header
   * ({@link SemiSyncPackets}), whether or not the primary currently waits for acknowledgements.
   *
   * @return true if the header will be there; false if the primary has no semi-sync source side
   */
  boolean requestSemiSync(PrimaryConnection connection) throws IOException;

  /**
   * The transactions the primary has executed, in the terms the store counts its own: MySQL
   * {@code @@gtid_executed}, MariaDB {@code @@gtid_binlog_state}.
   */
  GtidSet executedGtids(PrimaryConnection connection) throws IOException;

  /**
   * Sends the dump command of a replica that executed {@code executed}: the primary picks the file
   * and offset and sends every transaction after (MySQL: not in) the set. Used to resume on a
   * server other than the one that wrote the stored files.
   */
  void requestResumeDump(PrimaryConnection connection, GtidSet executed, long serverId)
      throws IOException;

  /**
   * The transactions of {@code stored} that {@code executed} lacks, as the server would print them
   * (for messages): empty if none.
   */
  String missing(GtidSet executed, GtidSet stored);

  /**
   * The event that follows FORMAT_DESCRIPTION and lists the GTIDs before the file (PREVIOUS_GTIDS,
   * GTID_LIST).
   */
  EventType gtidHeaderType();

  /**
   * The post-header length the body of {@link #gtidHeaderBody} assumes (a FORMAT_DESCRIPTION must
   * agree).
   */
  int gtidHeaderPostHeaderLength();

  /**
   * The body (post-header included, no checksum) of a {@link #gtidHeaderType()} event listing
   * {@code gtids}.
   */
  byte[] gtidHeaderBody(GtidSet gtids);
}
