package org.binlogrelay.storage;

import java.util.ArrayDeque;
import org.binlogrelay.protocol.gtid.GtidSet;

/**
 * What is true at the readable boundary, which may lag the writer (when readers only see durable bytes):
 * the GTID set there, and the facts of the open file up to there. The writer records, at each transaction
 * boundary, what changes at it (a transaction's GTID, or a file's header set replacing the set; the open
 * file's facts); advancing the readable boundary applies the changes up to it. Each boundary costs one
 * small record and one {@code add}; no set is copied per transaction.
 *
 * <p>Thread-safe (synchronized): the writer records, the writer or the syncer advances, anyone reads.
 */
final class ReadableState {
  /**
   * The open file's facts at a boundary, for {@link BinlogStore#files()}.
   *
   * @param file the open file
   * @param firstGtid its first transaction's GTID, {@code null} if none (or anonymous)
   * @param lastGtid its last transaction's GTID, {@code null} if none
   * @param transactions complete transactions in it
   * @param lastEventTime header timestamp of its last event
   */
  record OpenFacts(String file, String firstGtid, String lastGtid, long transactions, long lastEventTime) {}

  private record Change(Position at, Object gtid, GtidSet replacement, OpenFacts facts) {}

  private final BinlogFlavor flavor;
  private final ArrayDeque<Change> pending = new ArrayDeque<>();
  private GtidSet gtids;
  private OpenFacts facts;
  /** Changes at or before this were applied already (after a resume): the writer records them again. */
  private Position floor;

  ReadableState(BinlogFlavor flavor, GtidSet initial, OpenFacts facts) {
    this.flavor = flavor;
    this.gtids = initial.copy();
    this.facts = facts;
  }

  /**
   * At boundary {@code at}: the transaction ending there had {@code gtid} (or null), the file's header set
   * {@code replacement} (or null) replaced the set, and the open file's facts are {@code facts}.
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
  }

  /**
   * The store recovered in place ({@link BinlogStore#tryResume()}) and writes on from {@code end}, where the
   * GTID set is {@code endGtids} and the open file's facts are {@code endFacts}; the readable boundary is
   * {@code readable}. Pending changes are dropped (the writer records again what it writes from {@code end}).
   * If {@code end} is at or after the readable boundary, the state becomes the one at {@code end}; otherwise
   * (bytes readers had were lost and will be fetched again) it stays at the readable boundary, and changes up
   * to it are ignored when the writer records them again.
   */
  synchronized void resumeAt(Position end, GtidSet endGtids, OpenFacts endFacts, Position readable) {
    pending.clear();
    if (end == null || readable == null || end.compareTo(readable) >= 0) {
      gtids = endGtids.copy();
      facts = endFacts;
      floor = end;
    } else {
      floor = readable;
    }
  }

  synchronized GtidSet gtids() {
    return gtids.copy();
  }

  /** The open file's facts at the readable boundary, {@code null} if unknown. */
  synchronized OpenFacts facts() {
    return facts;
  }
}
