package org.binlogrelay.storage;

/**
 * The store's view of time (STYLE.md section 8): a monotonic clock for sync intervals and checkpoint
 * scheduling, and a wall clock for logs. Tests pass a fake to make scheduling exact.
 */
public interface Time {
  /** The system clocks. */
  Time SYSTEM = new Time() {
    @Override
    public long nanoseconds() {
      return System.nanoTime();
    }

    @Override
    public long milliseconds() {
      return System.currentTimeMillis();
    }
  };

  /** Monotonic nanoseconds, for intervals only. */
  long nanoseconds();

  /** Wall-clock milliseconds since the epoch. */
  long milliseconds();
}
