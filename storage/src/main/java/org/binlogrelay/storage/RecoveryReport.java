package org.binlogrelay.storage;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.binlogrelay.protocol.gtid.GtidSet;

/**
 * What {@link BinlogStore#open} found and did to bring the directory to a consistent state. Each
 * entry of {@link #truncations()} and {@link #actions()} was also logged at WARN when it happened.
 * Immutable.
 *
 * @param truncations bytes cut from files (an incomplete transaction, a corrupt or torn tail)
 * @param actions everything else done, one sentence each: metadata rebuilt by a scan, an empty tail
 *     file removed, a file added to or dropped from the index, leftovers deleted
 * @param end the end of the stored binlog after recovery (also the readable and durable boundary)
 * @param nextUpstreamPosition where the primary's stream must continue, {@code null} for an empty
 *     store
 * @param executedGtids the GTID set of everything stored (a copy)
 * @param filesScanned how many files were read (the tail from its checkpoint, files whose metadata
 *     was lost)
 * @param bytesScanned how many bytes were read to verify them
 * @param took how long recovery took
 */
public record RecoveryReport(
    List<Truncation> truncations,
    List<String> actions,
    Position end,
    Position nextUpstreamPosition,
    GtidSet executedGtids,
    int filesScanned,
    long bytesScanned,
    Duration took) {

  public RecoveryReport {
    truncations = List.copyOf(truncations);
    actions = List.copyOf(actions);
    Objects.requireNonNull(executedGtids, "executedGtids");
    executedGtids = executedGtids.copy();
  }

  @Override
  public GtidSet executedGtids() {
    return executedGtids.copy();
  }

  /** True if nothing had to be cut or repaired. */
  public boolean clean() {
    return truncations.isEmpty() && actions.isEmpty();
  }
}
