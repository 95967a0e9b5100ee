package org.binlogrelay.storage;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The store's view of time (STYLE.md section 8): a monotonic clock for sync intervals and checkpoint
 * scheduling, a wall clock for logs, and waits measured on the monotonic clock. Tests pass a fake to make
 * scheduling exact: a fake's {@link #waitOn} ends when the fake is moved past the deadline, not when real time
 * passes.
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

  /**
   * Waits on {@code monitor}, whose lock the caller holds, until {@code done} holds or {@link #nanoseconds()}
   * reaches {@code deadlineNanos}. Whoever makes {@code done} true must call {@code monitor.notifyAll()} while
   * holding the lock; the wait then checks {@code done} again. This implementation waits with {@link
   * Object#wait(long, int)} (the monitor's lock is released meanwhile) against this clock's {@link
   * #nanoseconds()}.
   *
   * @return {@code done}'s value when the wait ended (false: the deadline came first)
   * @throws InterruptedException if the thread was interrupted while waiting
   */
  default boolean waitOn(Object monitor, BooleanSupplier done, long deadlineNanos) throws InterruptedException {
    while (!done.getAsBoolean()) {
      long left = deadlineNanos - nanoseconds();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(monitor, left);
    }
    return true;
  }
}
