package org.binlogrelay.server.upstream;

import java.util.EnumMap;
import java.util.Map;
import org.binlogrelay.storage.Position;

/**
 * The replicator's running totals. Each field has one writer: the replicator's thread for the
 * stream's counters, a session's {@link AckSender} thread for {@link #acksSent} and {@link
 * #lastAck}; any thread reads them through {@link UpstreamReplicator#state()}. Each field is
 * volatile, so a reader sees every value whole, though not all fields of one instant.
 */
final class IngestCounters {
  volatile long bytes;
  volatile long events;
  volatile long heartbeats;
  volatile long transactions;
  volatile Position position;
  volatile long lastEventMillis;

  /** Whether the current connection acknowledges semi-sync transactions. */
  volatile boolean semiSync;

  volatile long acksRequested;
  volatile long acksSent;

  /** The newest position acknowledged to the primary (the primary's coordinates). */
  volatile Position lastAck;

  volatile String lastGtid;
  volatile long immediateCommitMicros;
  volatile long originalCommitMicros;
  volatile long transactionTimestamp;
  volatile long lastEventTimestamp;
  volatile boolean lastWasHeartbeat;
  private final Map<IngestStats.FailureKind, Long> failures =
      new EnumMap<>(IngestStats.FailureKind.class);

  /**
   * A transaction starts (its GTID event arrived); commit times 0 when the event has none. Writer
   * thread only.
   */
  void transactionStarted(
      String gtid, long immediateMicros, long originalMicros, long headerTimestamp) {
    lastGtid = gtid;
    immediateCommitMicros = immediateMicros;
    originalCommitMicros = originalMicros;
    transactionTimestamp = headerTimestamp;
  }

  /** A connection or stream failed. Writer thread. */
  void failed(Throwable failure) {
    IngestStats.FailureKind kind = IngestStats.FailureKind.of(failure);
    synchronized (failures) {
      failures.merge(kind, 1L, Long::sum);
    }
  }

  IngestStats stats() {
    Map<IngestStats.FailureKind, Long> f;
    synchronized (failures) {
      f = Map.copyOf(failures);
    }
    return new IngestStats(
        lastGtid,
        immediateCommitMicros,
        originalCommitMicros,
        transactionTimestamp,
        lastEventTimestamp,
        lastWasHeartbeat,
        f);
  }

  /** Writer thread only. */
  void event(
      int length, boolean heartbeat, boolean completedTransaction, Position at, long nowMillis) {
    bytes += length;
    events++;
    if (heartbeat) {
      heartbeats++;
    }
    if (completedTransaction) {
      transactions++;
    }
    position = at;
    lastEventMillis = nowMillis;
    lastWasHeartbeat = heartbeat;
  }

  /** Writer thread only. */
  void ackRequested() {
    acksRequested++;
  }

  /** The ack sender's thread only. */
  void ackSent(Position at) {
    acksSent++;
    lastAck = at;
  }
}
