package org.binlogrelay.server.metrics;

import org.binlogrelay.server.serving.DumpStatus;

/**
 * One replica's feed with its lag, as the admin API and the per-replica meters show it. Immutable.
 *
 * @param status the dump's own snapshot
 * @param bytesBehind stored bytes after the dump's position up to the store's readable end, across
 *     files
 * @param secondsBehind the newest stored transaction's timestamp minus that of the last transaction
 *     the dump passed; 0 when caught up; {@code null} when unknown (nothing stored, not started)
 * @param sendRate bytes sent per second over the last {@link ReplicaLag#WINDOW}, {@code null} until
 *     two samples
 * @param catchUpRate how fast {@code bytesBehind} shrank per second over the same window (negative
 *     when it grows), {@code null} until two samples
 * @param etaSeconds {@code bytesBehind / catchUpRate} when the rate is positive, 0 when caught up,
 *     else {@code null}
 */
public record ReplicaView(
    DumpStatus status,
    long bytesBehind,
    Double secondsBehind,
    Double sendRate,
    Double catchUpRate,
    Double etaSeconds) {}
