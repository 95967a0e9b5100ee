package org.binlogrelay.storage;

import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.txn.TransactionBoundaries;

/**
 * What storage needs to know about a flavour (STYLE.md section 4): its GTID sets as metadata text,
 * its transaction boundaries and the header event that carries a file's start set (for the {@link
 * FileTracker} that follows a file), and what the primary does to the in-use flag of a file it
 * crashed in. Chosen once per store from {@link StoreConfig#flavor()}. Implementations are
 * stateless.
 */
interface BinlogFlavor {

  static BinlogFlavor of(GtidFlavor flavor) {
    return flavor == GtidFlavor.MYSQL ? MysqlBinlogFlavor.INSTANCE : MariadbBinlogFlavor.INSTANCE;
  }

  GtidFlavor gtidFlavor();

  GtidSet emptyGtids();

  /**
   * True if a server of this flavour wrote {@code format} (a file's FORMAT_DESCRIPTION): a MariaDB
   * server version for MariaDB, any other for MySQL. A store never mixes the two.
   */
  boolean wrote(FormatDescriptionEvent format);

  /** Parses what {@link #formatGtids} wrote; {@link IllegalArgumentException} if malformed. */
  GtidSet parseGtids(String text);

  /** The set as one line of text (the server's text without line breaks). */
  String formatGtids(GtidSet set);

  /** Adds a GTID returned in {@link FileTracker.Completed#gtid()} to a set of this flavour. */
  void add(GtidSet set, Object gtid);

  /** The flavour's boundary tracker from {@code start} (see {@link #newTracker}). */
  TransactionBoundaries<?> newBoundaries(long start, FormatDescriptionEvent format);

  /**
   * The set a file's header event carries (MySQL PREVIOUS_GTIDS, MariaDB GTID_LIST), {@code null}
   * for others.
   */
  GtidSet headerSet(BinlogEvent event, FormatDescriptionEvent format);

  /**
   * Whether the server, restarting after a crash, clears {@code LOG_EVENT_BINLOG_IN_USE_F} in the
   * file it crashed in (which then ends without ROTATE or STOP). The store does the same to its
   * copy when the primary's next file starts, so the copy stays byte-identical.
   */
  boolean clearsInUseAfterCrash();

  /**
   * A tracker for a file read or written from {@code start}.
   *
   * @param start 4 for a file's beginning (its FORMAT_DESCRIPTION is then fed first), or a
   *     transaction boundary after it
   * @param format the file's FORMAT_DESCRIPTION when {@code start} is past it, else {@code null}
   * @param gtids the GTID set at {@code start} (copied)
   */
  default FileTracker newTracker(long start, FormatDescriptionEvent format, GtidSet gtids) {
    return new FileTracker(this, start, format, gtids);
  }
}
