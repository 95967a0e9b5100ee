package org.binlogrelay.bench.stream;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How far one dump stream got, published by its reading thread and read by samplers. Each field is
 * written with a release store (no fence per event) and read with a volatile load; the fields are
 * read one by one, so a sample may mix two adjacent events. Thread-safe: one writer, any number of
 * readers.
 */
public final class DumpProgress {
  private final AtomicLong eventBytes = new AtomicLong();
  private final AtomicLong events = new AtomicLong();
  private final AtomicLong transactions = new AtomicLong();
  private final AtomicLong position = new AtomicLong(-1);
  private final AtomicLong lastEventNanos = new AtomicLong();

  void publish(
      long bytes, long eventCount, long transactionCount, long packedPosition, long nanos) {
    eventBytes.lazySet(bytes);
    events.lazySet(eventCount);
    transactions.lazySet(transactionCount);
    position.lazySet(packedPosition);
    lastEventNanos.lazySet(nanos);
  }

  /** Bytes of the events received (heartbeats excluded), i.e. of the binlog. */
  public long eventBytes() {
    return eventBytes.get();
  }

  public long events() {
    return events.get();
  }

  /** GTID events received: one per transaction. */
  public long transactions() {
    return transactions.get();
  }

  /** {@link BinlogPosition#packed()} of the end of the last event received; -1 before the first. */
  public long position() {
    return position.get();
  }

  /** {@link System#nanoTime()} when the last event arrived. */
  public long lastEventNanos() {
    return lastEventNanos.get();
  }
}
