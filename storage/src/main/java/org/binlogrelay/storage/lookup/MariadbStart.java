package org.binlogrelay.storage.lookup;

import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.MariadbGtidFilter;
import org.binlogrelay.storage.read.MariadbStartException;

/** Where a MariaDB replica connecting with a GTID position starts, or why it cannot. Immutable. */
public sealed interface MariadbStart {

  /**
   * Start reading at {@code start} (offset 4 of the start file) with {@code filter}, which skips,
   * per domain, everything up to the replica's GTID.
   *
   * @param start offset 4 of the newest file whose GTID_LIST MariaDB's {@code
   *     contains_all_slave_gtid} accepts
   * @param filter what to skip (pass it in the reader's options)
   * @param firstToSend the first event group of the start file to send, or the file's readable end
   */
  record Found(Position start, MariadbGtidFilter filter, Position firstToSend)
      implements MariadbStart {}

  /**
   * The replica's GTID of a domain is not in the binlog ({@link
   * MariadbStartException.Kind#NOT_IN_BINLOG}, {@link MariadbStartException.Kind#DIVERGED}), or, in
   * strict mode, is a hole in the start file ({@link MariadbStartException.Kind#HOLE}). Sent as
   * 1236 with {@link #message()}.
   */
  record Refused(MariadbStartException.Kind kind, MariadbGtid gtid) implements MariadbStart {
    /** MariaDB's text for the error. */
    public String message() {
      return MariadbStartException.message(kind, gtid);
    }
  }

  /**
   * No stored file starts early enough: {@code gtid_find_binlog_file} fails with "Could not find
   * GTID state requested by slave in any binlog files. Probably the slave state is too old and
   * required binlog files have been purged.", sent as 1236.
   *
   * @param connectState the replica's position
   */
  record Purged(MariadbGtidSet connectState) implements MariadbStart {
    public static final String MESSAGE =
        "Could not find GTID state requested by slave in any binlog files."
            + " Probably the slave state is too old and required binlog files have been purged.";
  }

  /** The store holds no file yet. */
  record NothingStored() implements MariadbStart {}
}
