package org.binlogrelay.storage.pitr;

import java.time.Instant;
import java.util.Objects;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.storage.Position;

/**
 * Where a point-in-time recovery stops: just after one transaction of the stored binlog, the last
 * one to apply. Rolling a backup forward from its own GTID set (or position) up to {@link #end()}
 * leaves a server at {@link #executedAtStop()}. Immutable (the set is copied in and out).
 *
 * @param end the file and offset just after the last included transaction: a transaction boundary,
 *     usable as {@code mysqlbinlog --stop-position} on that file or {@code START REPLICA UNTIL
 *     SOURCE_LOG_FILE, SOURCE_LOG_POS}
 * @param executedAtStop the GTID set a server has executed once it applied everything up to {@link
 *     #end()}: the file's start set plus every transaction of the file up to the stop (MySQL:
 *     {@code gtid_executed}; MariaDB: {@code gtid_binlog_state})
 * @param commitTimeMicros when the last included transaction committed, microseconds since the
 *     epoch: MySQL's {@code immediate_commit_timestamp}; for MariaDB (and a MySQL binlog without
 *     commit timestamps) the header timestamp of its last event in whole seconds
 * @param gtid the last included transaction's GTID as the server prints it, {@code null} for an
 *     anonymous MySQL transaction
 * @param reason why the stop is there, in words, for logs and {@code relayctl}
 */
public record StopPoint(
    Position end, GtidSet executedAtStop, long commitTimeMicros, String gtid, String reason) {

  public StopPoint {
    Objects.requireNonNull(end, "end");
    executedAtStop = Objects.requireNonNull(executedAtStop, "executedAtStop").copy();
    Objects.requireNonNull(reason, "reason");
  }

  @Override
  public GtidSet executedAtStop() {
    return executedAtStop.copy();
  }

  /** {@link #commitTimeMicros()} as an instant. */
  public Instant commitTime() {
    return StopPointFinder.instantOfMicros(commitTimeMicros);
  }

  @Override
  public String toString() {
    return "stop at " + end + " (" + reason + ")";
  }
}
