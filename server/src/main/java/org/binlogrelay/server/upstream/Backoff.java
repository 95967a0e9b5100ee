package org.binlogrelay.server.upstream;

import java.time.Duration;
import java.util.Objects;

/**
 * How long to wait before reconnecting: capped exponential backoff with jitter. Attempt {@code n}
 * (1 for the first reconnection after a failure) waits a random time in {@code [d * (1 - jitter),
 * d]} where {@code d = min(max, initial * 2^(n-1))}. The jitter keeps many relays of one primary
 * from reconnecting in step. Immutable.
 *
 * @param initial the base delay of the first attempt
 * @param max the cap
 * @param jitter the fraction of the delay that is random, 0 (none) to 1 (anything from 0 to d)
 */
public record Backoff(Duration initial, Duration max, double jitter) {
  public static final Backoff DEFAULT =
      new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30), 0.5);

  public Backoff {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException("initial backoff must be positive, got " + initial);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("max backoff " + max + " is below the initial " + initial);
    }
    if (!(jitter >= 0 && jitter <= 1)) {
      throw new IllegalArgumentException("jitter must be within 0..1, got " + jitter);
    }
  }

  /**
   * The delay before attempt {@code attempt}.
   *
   * @param attempt 1 for the first reconnection after a failure, 2 for the next, ...
   * @param random a uniform value in {@code [0, 1)}
   */
  public Duration delay(int attempt, double random) {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1, got " + attempt);
    }
    long maxNanos = max.toNanos();
    long nanos = initial.toNanos();
    for (int i = 1; i < attempt && nanos < maxNanos; i++) {
      nanos = nanos > maxNanos / 2 ? maxNanos : nanos * 2;
    }
    nanos = Math.min(nanos, maxNanos);
    return Duration.ofNanos(nanos - (long) (nanos * jitter * random));
  }
}
