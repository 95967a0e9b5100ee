package org.binlogrelay.archive.upload;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UploadBackoffTest {
  @Test
  void doublesFromTheFirstWaitUpToTheMaximumWithinTheUpperHalf() {
    List<Duration> low = waits(() -> 0.0, 9);
    assertThat(low)
        .containsExactly(
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(8),
            Duration.ofSeconds(16),
            Duration.ofSeconds(30),
            Duration.ofSeconds(30),
            Duration.ofSeconds(30));
    List<Duration> high = waits(() -> 0.999_999, 8);
    assertThat(high.get(0)).isBetween(Duration.ofMillis(999), Duration.ofSeconds(1));
    assertThat(high.get(7)).isBetween(Duration.ofMillis(59_999), Duration.ofSeconds(60));
  }

  @Test
  void startsOverAfterASuccess() {
    UploadBackoff b = new UploadBackoff(Duration.ofSeconds(1), Duration.ofSeconds(60), () -> 0.0);
    b.next();
    b.next();
    assertThat(b.failures()).isEqualTo(2);
    b.reset();
    assertThat(b.next()).isEqualTo(Duration.ofMillis(500));
  }

  private static List<Duration> waits(java.util.function.DoubleSupplier random, int n) {
    UploadBackoff b = new UploadBackoff(Duration.ofSeconds(1), Duration.ofSeconds(60), random);
    List<Duration> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(b.next());
    }
    return out;
  }
}
