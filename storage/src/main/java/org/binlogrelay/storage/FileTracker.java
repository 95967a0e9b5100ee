package org.binlogrelay.storage;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.protocol.txn.TransactionBoundaries;

/**
 * Follows one binlog file event by event: the transaction boundaries (the flavour's {@link
 * TransactionBoundaries}) and the GTID set after the last complete transaction. The file's header set
 * (MySQL PREVIOUS_GTIDS, MariaDB GTID_LIST) replaces the running set, as it is the primary's own account of
 * everything before the file. Used by the writer for the open file and by recovery and verification to
 * scan files. Not thread-safe.
 */
abstract class FileTracker {

  /**
   * A transaction the last event completed.
   *
   * @param gtid the flavour's GTID object, {@code null} for an anonymous MySQL transaction
   * @param text the GTID as the server prints it, {@code null} if anonymous
   * @param start where its first event starts
   * @param end where it ends (a boundary)
   */
  record Completed(Object gtid, String text, long start, long end) {}

  private FormatDescriptionEvent format;
  private GtidSet headerGtids;
  private GtidSet lastHeaderGtids;

  FileTracker(FormatDescriptionEvent format) {
    this.format = format;
  }

  /**
   * Feeds the event starting at {@code at}.
   *
   * @return the transaction it completed, or {@code null}
   * @throws ProtocolException if the event cannot come here; the tracker is then unusable
   */
  final Completed accept(BinlogEvent event, long at) {
    if (event.type() == EventType.FORMAT_DESCRIPTION) {
      format = FormatDescriptionEvent.parse(event);
    }
    Transaction<?> done = boundaries().accept(event, at);
    GtidSet header = headerSet(event, format);
    lastHeaderGtids = header;
    if (header != null) {
      headerGtids = header.copy();
      replaceGtids(header);
    }
    if (done == null) {
      return null;
    }
    Object gtid = done.gtid();
    if (gtid != null) {
      addGtid(gtid);
    }
    return new Completed(gtid, gtid == null ? null : gtid.toString(), done.start(), done.end());
  }

  final boolean atBoundary() {
    return boundaries().atBoundary();
  }

  /** The last transaction boundary: where the open transaction starts, or {@link #position()} at a boundary. */
  final long lastBoundary() {
    return boundaries().lastBoundary();
  }

  /** Where the next event must start. */
  final long position() {
    return boundaries().position();
  }

  /** The FORMAT_DESCRIPTION in force, {@code null} before one was fed or given. */
  final FormatDescriptionEvent format() {
    return format;
  }

  /** The set of the file's header event if one was fed, else {@code null}. */
  final GtidSet headerGtids() {
    return headerGtids;
  }

  /** The set the last event fed carries if it is a PREVIOUS_GTIDS or GTID_LIST, else {@code null}. */
  final GtidSet lastHeaderGtids() {
    return lastHeaderGtids;
  }

  /** The live GTID set after the last complete transaction; callers copy it before handing it out. */
  abstract GtidSet gtids();

  abstract TransactionBoundaries<?> boundaries();

  /** The set a PREVIOUS_GTIDS or GTID_LIST event carries, {@code null} for other events. */
  abstract GtidSet headerSet(BinlogEvent event, FormatDescriptionEvent format);

  abstract void replaceGtids(GtidSet set);

  abstract void addGtid(Object gtid);
}
