package org.binlogrelay.server.serving;

import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.storage.read.EventBatch;

/**
 * Shared ownership of one {@link EventBatch}: the stream holds one reference while it writes the
 * batch, and every {@link BatchRegion} made from it holds one until Netty has sent or dropped it.
 * The batch (which keeps its file open) is closed when the last reference goes, on whichever thread
 * that is.
 *
 * <p>Thread-safe.
 */
final class BatchLease {
  private final EventBatch batch;
  private final AtomicInteger references = new AtomicInteger(1);

  BatchLease(EventBatch batch) {
    this.batch = batch;
  }

  EventBatch batch() {
    return batch;
  }

  /** Takes one more reference. */
  BatchLease retain() {
    int before = references.getAndIncrement();
    if (before <= 0) {
      references.decrementAndGet();
      throw new IllegalStateException("batch " + batch + " was already released");
    }
    return this;
  }

  /** Gives one reference back; the last one closes the batch. */
  void release() {
    int left = references.decrementAndGet();
    if (left == 0) {
      batch.close();
    } else if (left < 0) {
      throw new IllegalStateException("batch " + batch + " released once too often");
    }
  }
}
