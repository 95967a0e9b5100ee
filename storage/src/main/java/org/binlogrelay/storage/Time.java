package org.binlogrelay.storage;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The relay's one view of time (STYLE.md section 8): a monotonic clock for intervals (sync,
 * checkpoints, back-off), a wall clock for logs and ages, and waits measured on the monotonic clock
 * ({@link #waitOn} for a condition, {@link #sleep} for a plain pause). Storage owns it because
 * storage is the lowest module that needs time; the server and its components take the same {@code
 * Time}. Tests pass a manual clock (storage's test-jar, {@code
 * org.binlogrelay.storage.testing.ManualTime}) to make scheduling exact: its waits end when it is
 * moved past the deadline, not when real time passes. Implementations are thread-safe.
 */
public interface Time {
  /** The system clocks. */
  Time SYSTEM =
      new Time() {
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
   * Waits on {@code monitor}, whose lock the caller holds, until {@code done} holds or {@link
   * #nanoseconds()} reaches {@code deadlineNanos}. Whoever makes {@code done} true must call {@code
   * monitor.notifyAll()} while holding the lock; the wait then checks {@code done} again. This
   * implementation waits with {@link Object#wait(long, int)} (the monitor's lock is released
   * meanwhile) against this clock's {@link #nanoseconds()}.
   *
   * @return {@code done}'s value when the wait ended (false: the deadline came first)
   * @throws InterruptedException if the thread was interrupted while waiting
   */
  default boolean waitOn(Object monitor, BooleanSupplier done, long deadlineNanos)
      throws InterruptedException {
    while (!done.getAsBoolean()) {
      long left = deadlineNanos - nanoseconds();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(monitor, left);
    }
    return true;
  }

  /**
   * Pauses the calling thread for {@code duration} on this clock: the real time for {@link
   * #SYSTEM}, until moved that far for a manual clock. This implementation waits with {@link
   * #waitOn} on a monitor of its own that nobody notifies.
   *
   * @throws InterruptedException if the thread was interrupted while waiting
   */
  default void sleep(Duration duration) throws InterruptedException {
    Object alone = new Object();
    long deadline = nanoseconds() + duration.toNanos();
    synchronized (alone) {
      waitOn(alone, () -> false, deadline);
    }
  }
}
