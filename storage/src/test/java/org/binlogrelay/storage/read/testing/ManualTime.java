package org.binlogrelay.storage.read.testing;

import java.time.Duration;
import org.binlogrelay.storage.Time;

/** A clock that moves only when told to. Thread-safe. */
public final class ManualTime implements Time {
  private volatile long nanos;
  private volatile long millis;

  public ManualTime(long epochMillis) {
    this.millis = epochMillis;
  }

  public synchronized void advance(Duration d) {
    nanos += d.toNanos();
    millis += d.toMillis();
  }

  @Override
  public long nanoseconds() {
    return nanos;
  }

  @Override
  public long milliseconds() {
    return millis;
  }
}
