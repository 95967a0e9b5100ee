package org.binlogrelay.protocol.testing;

import java.util.Random;
import java.util.function.Consumer;

/**
 * Property checks over seeded random cases. Each case gets its own {@link Random} from a seed
 * derived from the property's name, so runs are repeatable; a failure names the seed, and {@code
 * -Dbinlogrelay.seed=N} re-runs exactly that case. {@code -Dbinlogrelay.tries=N} changes the number
 * of cases of every property (a soak run can raise it).
 */
public final class RandomCases {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private RandomCases() {}

  /**
   * Runs {@code property} on {@code tries} random cases (or the one given by -Dbinlogrelay.seed).
   */
  public static void check(String name, int tries, Consumer<Random> property) {
    String fixed = System.getProperty("binlogrelay.seed");
    if (fixed != null && !fixed.isBlank()) {
      run(name, Long.parseLong(fixed.trim()), property);
      return;
    }
    int n = Integer.getInteger("binlogrelay.tries", tries);
    long base = name.hashCode() * GOLDEN;
    for (int i = 0; i < n; i++) {
      run(name, base + i * GOLDEN, property);
    }
  }

  /** {@link #check(String, int, Consumer)} with 200 cases. */
  public static void check(String name, Consumer<Random> property) {
    check(name, 200, property);
  }

  private static void run(String name, long seed, Consumer<Random> property) {
    try {
      property.accept(new Random(seed));
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(
          "property '"
              + name
              + "' failed for seed "
              + seed
              + " (re-run it alone with -Dbinlogrelay.seed="
              + seed
              + "): "
              + e.getMessage(),
          e);
    }
  }
}
