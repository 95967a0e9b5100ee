package org.binlogrelay.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LagTimelineTest {
  private static final long S = 1_000_000_000L;
  private static final long T0 = 5 * S;

  @Test
  void aSteadyLagHasNoGrowthAndAGrowingOneItsSlope() {
    LagTimeline steady = new LagTimeline(T0, 10);
    LagTimeline growing = new LagTimeline(T0, 10);
    for (int second = 0; second < 10; second++) {
      for (int k = 0; k < 5; k++) {
        long at = T0 + second * S + k * (S / 5);
        steady.add(at, 3_000 + k); // about 3 ms every second
        growing.add(at, 3_000 + second * 250_000L); // 250 ms more every second
      }
    }
    assertThat(steady.growthMillisPerSecond()).isCloseTo(0.0, within(1e-9));
    assertThat(growing.growthMillisPerSecond()).isCloseTo(250.0, within(1e-6));
    assertThat(steady.medianMillis(0, 3)).isEqualTo(3.002);
    assertThat(growing.medianMillis(8, 10)).isEqualTo(2_003.0);
    assertThat(growing.percentiles("p50", 50).points())
        .hasSize(10)
        .first()
        .satisfies(p -> assertThat(p).containsExactly(0.5, 3.0));
  }

  @Test
  void samplesOutsideTheMeasurementAreLeftOut() {
    LagTimeline line = new LagTimeline(T0, 2);
    line.add(T0 - 1, 1_000_000);
    line.add(T0 + 2 * S, 1_000_000);
    line.add(T0 + S, 7_000);
    assertThat(line.percentiles("p50", 50).points())
        .hasSize(1)
        .first()
        .satisfies(p -> assertThat(p).containsExactly(1.5, 7.0));
    assertThat(line.growthMillisPerSecond()).isZero();
  }
}
