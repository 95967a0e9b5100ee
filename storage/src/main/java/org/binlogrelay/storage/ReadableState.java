package org.binlogrelay.storage;

import java.util.ArrayDeque;
import org.binlogrelay.protocol.gtid.GtidSet;

/**
 * What is true at the readable boundary, which may lag the writer (when readers only see durable
 * bytes): the boundary itself, the GTID set there, and the facts of the boundary's file up to
 * there. The writer records, at each transaction boundary, what changes at it (a transaction's
 * GTID, or a file's header set replacing the set; the file's facts); {@link #advanceTo} applies the
 * changes up to the new readable boundary. Each boundary costs one small record and one {@code
 * add}; no set is copied per transaction.
 *
 * <p>The store calls {@link #advanceTo} from inside {@link StoreWatch#advance(Position,
 * java.util.function.Consumer)} of the readable watch, after the watch's new position is visible
 * and before anyone is woken: so this state is never ahead of {@link BinlogStore#readableEnd()} and
 * is in place for the readers an advance wakes. {@link #snapshot()} gives the boundary and its set
 * together, as one picture.
 *
 * <p>Thread-safe (synchronized): the writer records, the writer or the syncer advances, anyone
 * reads.
 */
final class ReadableState {
  /**
   * The facts of the readable boundary's file at that boundary, for {@link BinlogStore#files()}.
   *
   * @param file the file
   * @param firstGtid its first transaction's GTID, {@code null} if none (or anonymous)
   * @param lastGtid its last transaction's GTID, {@code null} if none
   * @param transactions complete transactions in it
   * @param lastEventTime header timestamp of its last event
   */
  record OpenFacts(
      String file, String firstGtid, String lastGtid, long transactions, long lastEventTime) {}

  /**
   * One consistent picture of the readable boundary.
   *
   * @param position the boundary the state is at, {@code null} for an empty store
   * @param gtids the GTID set there (a copy, the caller's)
   * @param facts the facts of its file there, {@code null} if unknown
   */
  record Snapshot(Position position, GtidSet gtids, OpenFacts facts) {}

  private record Change(Position at, Object gtid, GtidSet replacement, OpenFacts facts) {}

  private final BinlogFlavor flavor;
  private final ArrayDeque<Change> pending = new ArrayDeque<>();
  private Position position;
  private GtidSet gtids;
  private OpenFacts facts;

  /**
   * Changes at or before this were applied already (after a resume): the writer records them again.
   */
  private Position floor;

  ReadableState(BinlogFlavor flavor, Position initial, GtidSet initialGtids, OpenFacts facts) {
    this.flavor = flavor;
    this.position = initial;
    this.gtids = initialGtids.copy();
    this.facts = facts;
  }

  /**
   * At boundary {@code at}: the transaction ending there had {@code gtid} (or null), the file's
   * header set {@code replacement} (or null) replaced the set, and the file's facts are {@code
   * facts}.
   */
  synchronized void record(Position at, Object gtid, GtidSet replacement, OpenFacts facts) {
    if (floor != null && at.compareTo(floor) <= 0) {
      return;
    }
    pending.add(new Change(at, gtid, replacement == null ? null : replacement.copy(), facts));
  }

  /** The readable boundary moved to {@code readable}: apply every change at or before it. */
  synchronized void advanceTo(Position readable) {
    while (!pending.isEmpty() && pending.peek().at().compareTo(readable) <= 0) {
      Change c = pending.poll();
      if (c.replacement() != null) {
        gtids = c.replacement();
      }
      if (c.gtid() != null) {
        flavor.add(gtids, c.gtid());
      }
      facts = c.facts();
    }
    if (position == null || readable.compareTo(position) > 0) {
      position = readable;
    }
  }

  /**
   * The store recovered in place ({@link BinlogStore#tryResume()}) and writes on from {@code end},
   * where the GTID set is {@code endGtids} and the file's facts are {@code endFacts}; the readable
   * boundary is {@code readable}. Pending changes are dropped (the writer records again what it
   * writes from {@code end}). If {@code end} is at or after the readable boundary, the state
   * becomes the one at {@code end} (call it from the readable watch's advance to {@code end}, as
   * {@link #advanceTo}); otherwise (bytes readers had were lost and will be fetched again) it stays
   * at the readable boundary, and changes up to it are ignored when the writer records them again.
   */
  synchronized void resumeAt(
      Position end, GtidSet endGtids, OpenFacts endFacts, Position readable) {
    pending.clear();
    if (end == null || readable == null || end.compareTo(readable) >= 0) {
      gtids = endGtids.copy();
      facts = endFacts;
      floor = end;
      if (end != null) {
        position = end;
      }
    } else {
      floor = readable;
    }
  }

  /** The boundary, the set there and its file's facts, taken together. */
  synchronized Snapshot snapshot() {
    return new Snapshot(position, gtids.copy(), facts);
  }

  /** The GTID set at the boundary (a copy). */
  synchronized GtidSet gtids() {
    return gtids.copy();
  }
}
