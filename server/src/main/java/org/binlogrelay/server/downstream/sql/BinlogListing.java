package org.binlogrelay.server.downstream.sql;

import java.util.List;
import java.util.Optional;

/**
 * What the relay's binlog store tells {@code SHOW BINARY LOGS}, {@code SHOW BINARY LOG STATUS} /
 * {@code SHOW MASTER STATUS}, {@code @@gtid_executed}, {@code @@gtid_purged}, MariaDB's
 * {@code @@gtid_binlog_pos} / {@code @@gtid_binlog_state} and {@code binlog_gtid_pos()}.
 * Implemented by whoever wires storage in; {@link #EMPTY} until then. Implementations must be
 * thread-safe: every connection's event loop calls them.
 */
public interface BinlogListing {

  /**
   * One binlog file.
   *
   * @param name its name
   * @param size its size (the open file's readable length)
   * @param tier where it is with an archive: {@code local}, {@code local,archive} or {@code
   *     archive} (SHOW BINARY LOGS adds a {@code Tier} column); null without an archive
   */
  record BinlogFile(String name, long size, String tier) {
    /** A file of a relay without an archive. */
    public BinlogFile(String name, long size) {
      this(name, size, null);
    }
  }

  /** A position: file and offset. */
  record Position(String file, long offset) {}

  /** The files, oldest first. */
  List<BinlogFile> files();

  /** Where the next event will be written, empty when there is no binlog yet. */
  Optional<Position> current();

  /**
   * The executed GTID set in the flavour's text form: MySQL's {@code @@gtid_executed} ({@code
   * uuid:1-5,\nuuid:...}), MariaDB's {@code @@gtid_binlog_pos} (the newest GTID per domain, {@code
   * 0-1-100,1-2-7}).
   */
  String executedGtids();

  /**
   * MySQL's {@code @@gtid_purged}: the GTIDs executed but no longer in any stored binlog file, in
   * the same text form as {@link #executedGtids()}; empty when nothing was purged. MariaDB has no
   * such variable.
   */
  String purgedGtids();

  /**
   * MariaDB's {@code @@gtid_binlog_state}: the last GTID of every domain-server pair ({@code
   * 0-1-90,0-2-100}), which {@link #executedGtids()} narrows to one per domain; on MySQL the same
   * as {@link #executedGtids()}.
   */
  String binlogState();

  /**
   * MariaDB's {@code binlog_gtid_pos(file, offset)}: the GTID position at that point, empty if
   * unknown.
   */
  Optional<String> gtidPositionAt(String file, long offset);

  /**
   * One event of {@code SHOW BINLOG EVENTS}: where it starts and ends in its file, its type as the
   * server names it ({@code Gtid}, {@code Query}, {@code Write_rows}), the server_id it carries,
   * and a description of it ({@code Info}: the statement of a query event, the GTID of a GTID
   * event, empty where the relay does not describe the event).
   */
  record EventRow(
      String logName,
      long position,
      String eventType,
      long serverId,
      long endPosition,
      String info) {}

  /**
   * {@code SHOW BINLOG EVENTS [IN file] [FROM position] [LIMIT [offset,] count]}: the events of
   * {@code file} (the first stored file when null) that start at or after {@code from}, skipping
   * {@code offset}, at most {@code count} ({@code -1}: all; implementations may stop earlier at a
   * limit of their own, which they document). Empty when the file is not stored ("Could not find
   * target log").
   */
  default Optional<List<EventRow>> events(String file, long from, long offset, long count) {
    return file == null ? Optional.of(List.of()) : Optional.empty();
  }

  /** No binlogs at all. */
  BinlogListing EMPTY =
      new BinlogListing() {
        @Override
        public List<BinlogFile> files() {
          return List.of();
        }

        @Override
        public Optional<Position> current() {
          return Optional.empty();
        }

        @Override
        public String executedGtids() {
          return "";
        }

        @Override
        public String purgedGtids() {
          return "";
        }

        @Override
        public String binlogState() {
          return "";
        }

        @Override
        public Optional<String> gtidPositionAt(String file, long offset) {
          return Optional.empty();
        }
      };
}
