package org.binlogrelay.storage;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.protocol.txn.TransactionBoundaries;

/**
 * Follows one binlog file event by event: the transaction boundaries (the flavour's {@link
 * TransactionBoundaries}) and the GTID set after the last complete transaction. The file's header
 * set (MySQL PREVIOUS_GTIDS, MariaDB GTID_LIST) replaces the running set, as it is the primary's
 * own account of everything before the file. What differs between flavours (the boundaries, which
 * event carries the header set, how a GTID joins a set) comes from the {@link BinlogFlavor}. Used
 * by the writer for the open file and by recovery and verification to scan files. Not thread-safe.
 */
final class FileTracker {

  /**
   * A transaction the last event completed.
   *
   * @param gtid the flavour's GTID object, {@code null} for an anonymous MySQL transaction
   * @param text the GTID as the server prints it, {@code null} if anonymous
   * @param start where its first event starts
   * @param end where it ends (a boundary)
   */
  record Completed(Object gtid, String text, long start, long end) {}

  private final BinlogFlavor flavor;
  private final TransactionBoundaries<?> boundaries;
  private FormatDescriptionEvent format;
  private GtidSet gtids;
  private GtidSet headerGtids;
  private GtidSet lastHeaderGtids;

  /** See {@link BinlogFlavor#newTracker}; {@code gtids} is copied. */
  FileTracker(BinlogFlavor flavor, long start, FormatDescriptionEvent format, GtidSet gtids) {
    this.flavor = flavor;
    this.boundaries = flavor.newBoundaries(start, format);
    this.format = format;
    this.gtids = gtids.copy();
  }

  /**
   * Feeds the event starting at {@code at}.
   *
   * @return the transaction it completed, or {@code null}
   * @throws ProtocolException if the event cannot come here; the tracker is then unusable
   */
  Completed accept(BinlogEvent event, long at) {
    if (event.type() == EventType.FORMAT_DESCRIPTION) {
      format = FormatDescriptionEvent.parse(event);
    }
    // The header set and a ROTATE are read before the boundaries move past the event: an event
    // refused here
    // must leave the last boundary before it, or recovery would keep it.
    GtidSet header = flavor.headerSet(event, format);
    if (event.type() == EventType.ROTATE) {
      checkRotate(event, at);
    }
    Transaction<?> done = boundaries.accept(event, at);
    lastHeaderGtids = header;
    if (header != null) {
      headerGtids = header.copy();
      gtids = header.copy();
    }
    if (done == null) {
      return null;
    }
    Object gtid = done.gtid();
    if (gtid != null) {
      flavor.add(gtids, gtid);
    }
    return new Completed(gtid, gtid == null ? null : gtid.toString(), done.start(), done.end());
  }

  /**
   * A ROTATE that ends a file names the next binlog file and continues at its offset 4; the writer
   * refuses any other ({@link DumpStream}), so in a stored file one is damage, found by recovery
   * like a bad checksum.
   */
  private void checkRotate(BinlogEvent event, long at) {
    RotateEvent rotate = RotateEvent.parse(event, format);
    if (!BinlogFileName.isValid(rotate.nextFile())
        || rotate.position() != BinlogFileName.FIRST_EVENT_OFFSET) {
      String name = rotate.nextFile();
      throw new ProtocolException(
          "ROTATE event at position "
              + at
              + " continues at "
              + rotate.position()
              + " of '"
              + (name.length() > 64 ? name.substring(0, 64) + "..." : name)
              + "'; a primary's ROTATE names a binlog file"
              + " (base.NNNNNN) at offset 4");
    }
  }

  boolean atBoundary() {
    return boundaries.atBoundary();
  }

  /**
   * The last transaction boundary: where the open transaction starts, or {@link #position()} at a
   * boundary.
   */
  long lastBoundary() {
    return boundaries.lastBoundary();
  }

  /** Where the next event must start. */
  long position() {
    return boundaries.position();
  }

  /** The FORMAT_DESCRIPTION in force, {@code null} before one was fed or given. */
  FormatDescriptionEvent format() {
    return format;
  }

  /** The set of the file's header event if one was fed, else {@code null}. */
  GtidSet headerGtids() {
    return headerGtids;
  }

  /**
   * The set the last event fed carries if it is a PREVIOUS_GTIDS or GTID_LIST, else {@code null}.
   */
  GtidSet lastHeaderGtids() {
    return lastHeaderGtids;
  }

  /**
   * The live GTID set after the last complete transaction; callers copy it before handing it out.
   */
  GtidSet gtids() {
    return gtids;
  }
}
