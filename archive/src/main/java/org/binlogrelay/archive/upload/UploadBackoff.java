package org.binlogrelay.archive.upload;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * The waits between attempts after failures: {@code first}, doubled per consecutive failure up to
 * {@code max}, each drawn uniformly from its upper half ({@code [d/2, d]}) so that relays sharing
 * an object store do not retry in step; {@link #reset} after a success. The jitter source is passed
 * in (tests make it exact). Not thread-safe: the uploader's thread owns it.
 */
final class UploadBackoff {
  private final Duration first;
  private final Duration max;
  private final DoubleSupplier random;
  private int failures;

  /**
   * @param random values in {@code [0, 1)}
   */
  UploadBackoff(Duration first, Duration max, DoubleSupplier random) {
    this.first = first;
    this.max = max;
    this.random = random;
  }

  /** The wait after one more failure. */
  Duration next() {
    long ceiling = first.toNanos();
    for (int i = 0; i < failures && ceiling < max.toNanos(); i++) {
      ceiling *= 2;
    }
    ceiling = Math.min(ceiling, max.toNanos());
    failures++;
    long half = ceiling / 2;
    return Duration.ofNanos(half + (long) (random.getAsDouble() * (ceiling - half)));
  }

  /** Consecutive failures so far. */
  int failures() {
    return failures;
  }

  void reset() {
    failures = 0;
  }
}
