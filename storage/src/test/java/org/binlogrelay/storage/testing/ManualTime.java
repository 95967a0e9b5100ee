package org.binlogrelay.storage.testing;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.binlogrelay.storage.Time;

/**
 * Test side: a {@link Time} that moves only when the test says so ({@link #advance}). Its {@link
 * #waitOn} (and so {@link #sleep}) ends when the clock is moved past the deadline or the waited-for
 * condition holds, never because real time passed; each wait started is reported, so that a test
 * can read the exact delays a component asks for ({@link #nextWait}). Shared with the server's and
 * the end-to-end tests through storage's test-jar. Thread-safe.
 */
public final class ManualTime implements Time {
  private volatile long nanos;
  private volatile long millis;
  private final Set<Object> monitors = ConcurrentHashMap.newKeySet();
  private final BlockingQueue<Duration> waits = new LinkedBlockingQueue<>();

  /** A clock at {@code epochMillis} on the wall clock and 0 on the monotonic one. */
  public ManualTime(long epochMillis) {
    this.millis = epochMillis;
  }

  /** Moves both clocks by {@code d} and wakes every wait in progress to check its deadline. */
  public void advance(Duration d) {
    synchronized (this) {
      nanos += d.toNanos();
      millis += d.toMillis();
    }
    for (Object monitor : monitors) {
      synchronized (monitor) {
        monitor.notifyAll();
      }
    }
  }

  /**
   * The length of the next wait started with {@link #waitOn} or {@link #sleep}, in the order they
   * started.
   *
   * @param bound how long (real time) to wait for a component to start one
   * @throws AssertionError if none started within {@code bound}
   */
  public Duration nextWait(Duration bound) throws InterruptedException {
    Duration d = waits.poll(bound.toMillis(), TimeUnit.MILLISECONDS);
    if (d == null) {
      throw new AssertionError("no wait on the manual clock within " + bound);
    }
    return d;
  }

  /** Waits started and not yet read by {@link #nextWait}. */
  public int pendingWaits() {
    return waits.size();
  }

  @Override
  public long nanoseconds() {
    return nanos;
  }

  @Override
  public long milliseconds() {
    return millis;
  }

  @Override
  public boolean waitOn(Object monitor, BooleanSupplier done, long deadlineNanos)
      throws InterruptedException {
    monitors.add(monitor);
    try {
      waits.add(Duration.ofNanos(deadlineNanos - nanos));
      while (!done.getAsBoolean()) {
        if (nanos >= deadlineNanos) {
          return false;
        }
        monitor.wait();
      }
      return true;
    } finally {
      monitors.remove(monitor);
    }
  }
}
