package org.binlogrelay.storage;

import java.util.Objects;
import org.binlogrelay.protocol.gtid.GtidSet;

/**
 * The readable boundary and the GTID set exactly there, taken together ({@link
 * BinlogStore#readableSnapshot()}): what a start lookup needs when it compares a replica's set with
 * what the store can serve. Reading {@link BinlogStore#readableEnd()} and {@link
 * BinlogStore#executedGtids()} one after the other cannot give that pair while the writer moves on
 * between the two calls. Immutable: the set is copied in and out.
 *
 * @param end the readable boundary, {@code null} for an empty store
 * @param executedGtids the GTID set of the transactions before {@code end}
 */
public record ReadableSnapshot(Position end, GtidSet executedGtids) {

  public ReadableSnapshot {
    executedGtids = Objects.requireNonNull(executedGtids, "executedGtids").copy();
  }

  /** A copy of the set. */
  @Override
  public GtidSet executedGtids() {
    return executedGtids.copy();
  }
}
