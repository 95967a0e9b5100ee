package org.binlogrelay.server.upstream;

import org.binlogrelay.storage.Position;

/**
 * The replicator's running totals. Each field has one writer: the replicator's thread for the stream's
 * counters, a session's {@link AckSender} thread for {@link #acksSent} and {@link #lastAck}; any thread reads
 * them through {@link UpstreamReplicator#state()}. Each field is volatile, so a reader sees every value whole,
 * though not all fields of one instant.
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

  /** Writer thread only. */
  void event(int length, boolean heartbeat, boolean completedTransaction, Position at, long nowMillis) {
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
