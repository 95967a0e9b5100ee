package org.binlogrelay.storage.lookup;

import org.binlogrelay.storage.Position;

/**
 * Whether a replica may start at the binlog position it asked for ({@code COM_BINLOG_DUMP} file and
 * offset), as {@link PositionLookup#check} found. Immutable.
 */
public sealed interface PositionCheck {

  /**
   * The position is an event boundary of a stored file, at or before its readable end: start a
   * reader there.
   */
  record Valid(Position position) implements PositionCheck {}

  /**
   * The position cannot be served.
   *
   * @param problem what is wrong (each names the MySQL/MariaDB message the server sends with error
   *     1236)
   * @param file the file asked for (the first stored file if the replica asked for "")
   * @param offset the offset asked for
   * @param readableLength how much of the file is readable; -1 if the file is not stored
   * @param eventStart for {@link Problem#INSIDE_EVENT}: where the event containing the offset
   *     starts, else -1
   */
  record Invalid(Problem problem, String file, long offset, long readableLength, long eventStart)
      implements PositionCheck {}

  /**
   * Why a position cannot be served, with the text MySQL 8.0.26+/9.x sends (MariaDB says "master"
   * for "source").
   */
  enum Problem {
    /** The file is not stored: "Could not find first log file name in binary log index file". */
    FILE_NOT_FOUND,
    /** Offset below 4: "Client requested source to start replication from position &lt; 4". */
    BELOW_FIRST_EVENT,
    /**
     * Past the end of a complete file: "Client requested source to start replication from position
     * &gt; file size".
     */
    PAST_FILE_END,
    /**
     * Past the readable end of the file being written: the relay does not have those bytes yet (a
     * replica ahead of a lagging relay). MySQL would say "position &gt; file size"; the server may
     * wait for the readable boundary to pass the position instead, and check again.
     */
    NOT_YET_READABLE,
    /**
     * Inside an event. MySQL and MariaDB have no check for it: they read garbage from there and
     * fail with "bogus data in log event", "log event entry exceeded max_allowed_packet; Increase
     * max_allowed_packet on source" or "binlog truncated in the middle of event; consider out of
     * disk space on source", depending on the bytes; MariaDB's BINLOG_GTID_POS() says "Slave
     * requested incorrect position in master binlog. Requested position %u in file '%s', but this
     * position does not correspond to the location of any binlog event."
     */
    INSIDE_EVENT
  }
}
