package org.binlogrelay.storage;

import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;

/**
 * What storage needs to know about a flavour (STYLE.md section 4): its GTID sets as metadata text, and a
 * {@link FileTracker} that follows transaction boundaries and the GTID set through a file. Chosen once per
 * store from {@link StoreConfig#flavor()}. Implementations are stateless.
 */
interface BinlogFlavor {

  static BinlogFlavor of(GtidFlavor flavor) {
    return flavor == GtidFlavor.MYSQL ? MysqlFlavor.INSTANCE : MariadbFlavor.INSTANCE;
  }

  GtidFlavor gtidFlavor();

  GtidSet emptyGtids();

  /** Parses what {@link #formatGtids} wrote; {@link IllegalArgumentException} if malformed. */
  GtidSet parseGtids(String text);

  /** The set as one line of text (the server's text without line breaks). */
  String formatGtids(GtidSet set);

  /** Adds a GTID returned in {@link FileTracker.Completed#gtid()} to a set of this flavour. */
  void add(GtidSet set, Object gtid);

  /**
   * A tracker for a file read or written from {@code start}.
   *
   * @param start 4 for a file's beginning (its FORMAT_DESCRIPTION is then fed first), or a transaction
   *     boundary after it
   * @param format the file's FORMAT_DESCRIPTION when {@code start} is past it, else {@code null}
   * @param gtids the GTID set at {@code start} (copied)
   */
  FileTracker newTracker(long start, FormatDescriptionEvent format, GtidSet gtids);
}
