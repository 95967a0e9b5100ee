package org.binlogrelay.server.metrics;

import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreListener;
import org.binlogrelay.storage.Time;

/**
 * The newest transaction boundaries the store wrote, each with when it was written (monotonic
 * nanoseconds, by the relay's {@link Time}) and its last event's timestamp (epoch seconds): a ring
 * of {@value #DEFAULT_CAPACITY} entries by default, in position order. It answers "when did the
 * relay have everything up to here" (relay-added latency) and "how old is the transaction that ends
 * here" (a replica's seconds behind).
 *
 * <p>Filled from {@link StoreListener#transactionWritten} on the store's writer thread, which is
 * the upstream thread that received the transaction's last event a moment before: the time recorded
 * is the time the relay received it. A position older than the ring is answered from nothing
 * ({@code null}); callers fall back.
 *
 * <p>Thread-safe: one writer, many readers, short critical sections on the ring's monitor.
 */
public final class BoundaryLog implements StoreListener {
  static final int DEFAULT_CAPACITY = 1 << 16;

  /** A boundary: the end of a transaction, when it was written, and its last event's timestamp. */
  public record Entry(Position end, long writtenNanos, long eventTimestamp) {}

  private final Time time;
  private final Position[] ends;

  /** The file sequence number of each end, parsed once when recorded (searches compare many). */
  private final long[] sequences;

  private final long[] nanos;
  private final long[] timestamps;

  /** Entries recorded so far; the newest is at (count - 1) % capacity. */
  private long count;

  /**
   * Index of the oldest entry still valid: the ring overwrites the oldest (floor moves up with
   * count), and entries forgotten after a cut are not valid again even though their slots still
   * hold them (floor stays).
   */
  private long floor;

  public BoundaryLog(Time time) {
    this(time, DEFAULT_CAPACITY);
  }

  BoundaryLog(Time time, int capacity) {
    if (capacity < 2) {
      throw new IllegalArgumentException("capacity must be at least 2, got " + capacity);
    }
    this.time = time;
    this.ends = new Position[capacity];
    this.sequences = new long[capacity];
    this.nanos = new long[capacity];
    this.timestamps = new long[capacity];
  }

  @Override
  public void transactionWritten(Position end, long eventTimestamp) {
    record(end, time.nanoseconds(), eventTimestamp);
  }

  synchronized void record(Position end, long writtenNanos, long eventTimestamp) {
    if (count > floor && !end.isAfter(ends[slot(count - 1)])) {
      // A new stream restarted the store behind what was recorded (a cut transaction): forget what
      // follows it.
      while (count > floor && !end.isAfter(ends[slot(count - 1)])) {
        count--;
      }
    }
    int i = slot(count);
    ends[i] = end;
    sequences[i] = end.fileSequence();
    nanos[i] = writtenNanos;
    timestamps[i] = eventTimestamp;
    count++;
    floor = Math.max(floor, count - ends.length);
  }

  /** The newest boundary, {@code null} before one. */
  public synchronized Entry newest() {
    return count == floor ? null : entry(count - 1);
  }

  /** The oldest boundary still in the ring, {@code null} before one. */
  public synchronized Entry oldest() {
    return count == floor ? null : entry(first());
  }

  /**
   * The newest boundary at or before {@code position}; {@code null} if the ring holds none (the
   * position is older than the ring, or nothing was recorded).
   */
  public synchronized Entry atOrBefore(Position position) {
    long sequence = position.fileSequence();
    long lo = first();
    long hi = count - 1;
    long found = -1;
    while (lo <= hi) {
      long mid = (lo + hi) >>> 1;
      if (compare(slot(mid), sequence, position) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? null : entry(found);
  }

  /**
   * The oldest boundary after {@code position}; {@code null} if the ring holds none after it, or if
   * {@code position} is before the ring's oldest boundary (boundaries between the two may have been
   * overwritten: the oldest after it is not known).
   */
  public synchronized Entry firstAfter(Position position) {
    if (count == floor) {
      return null;
    }
    long sequence = position.fileSequence();
    if (compare(slot(floor), sequence, position) > 0) {
      return null;
    }
    long lo = floor;
    long hi = count - 1;
    long found = -1;
    while (lo <= hi) {
      long mid = (lo + hi) >>> 1;
      if (compare(slot(mid), sequence, position) > 0) {
        found = mid;
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
    return found < 0 ? null : entry(found);
  }

  /**
   * {@code ends[i].compareTo(position)}, with the sequence numbers already parsed: {@code sequence}
   * is {@code position}'s.
   */
  private int compare(int i, long sequence, Position position) {
    Position end = ends[i];
    if (end.file().equals(position.file())) {
      return Long.compare(end.offset(), position.offset());
    }
    int byFile = Long.compare(sequences[i], sequence);
    return byFile != 0 ? byFile : end.file().compareTo(position.file());
  }

  private long first() {
    return floor;
  }

  private Entry entry(long index) {
    int i = slot(index);
    return new Entry(ends[i], nanos[i], timestamps[i]);
  }

  private int slot(long index) {
    return (int) (index % ends.length);
  }
}
