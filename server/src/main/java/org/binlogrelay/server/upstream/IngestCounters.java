package org.binlogrelay.server.upstream;

import org.binlogrelay.storage.Position;

/**
 * The replicator's running totals. One writer (the replicator's thread) updates them; any thread reads them
 * through {@link UpstreamReplicator#state()}. Each field is volatile, so a reader sees every value whole, though
 * not all fields of one instant.
 */
final class IngestCounters {
  volatile long bytes;
  volatile long events;
  volatile long heartbeats;
  volatile long transactions;
  volatile Position position;
  volatile long lastEventMillis;

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
}
