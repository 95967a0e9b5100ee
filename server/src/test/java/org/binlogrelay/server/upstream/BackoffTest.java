package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5), 0.5);

  @Test
  void doublesUpToTheCap() {
    assertThat(backoff.delay(1, 0)).isEqualTo(Duration.ofMillis(100));
    assertThat(backoff.delay(2, 0)).isEqualTo(Duration.ofMillis(200));
    assertThat(backoff.delay(6, 0)).isEqualTo(Duration.ofMillis(3200));
    assertThat(backoff.delay(7, 0)).isEqualTo(Duration.ofSeconds(5));
    assertThat(backoff.delay(Integer.MAX_VALUE, 0)).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void jitterTakesUpToItsFractionOff() {
    assertThat(backoff.delay(3, 0.999999))
        .isBetween(Duration.ofMillis(200), Duration.ofMillis(201));
    assertThat(backoff.delay(20, 0.5)).isEqualTo(Duration.ofMillis(3750));
    Backoff none = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5), 0);
    assertThat(none.delay(2, 0.9)).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void refusesNonsense() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), 0))
        .hasMessageContaining("positive");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 0))
        .hasMessageContaining("below");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 1.5))
        .hasMessageContaining("0..1");
    assertThatThrownBy(() -> backoff.delay(0, 0)).hasMessageContaining("at least 1");
  }
}
