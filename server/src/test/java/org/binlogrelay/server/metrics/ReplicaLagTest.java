package org.binlogrelay.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.server.metrics.ReplicaLag.Sample;
import org.junit.jupiter.api.Test;

class ReplicaLagTest {
  private static final long SECOND = 1_000_000_000L;

  /** Samples one second apart with these bytes behind. */
  private static List<Sample> behind(long... bytes) {
    List<Sample> samples = new ArrayList<>();
    for (int i = 0; i < bytes.length; i++) {
      samples.add(new Sample(i * SECOND, 0, bytes[i]));
    }
    return samples;
  }

  @Test
  void fallingBehindIsANegativeRate() {
    assertThat(ReplicaLag.catchUpRate(behind(0, 100, 200, 300))).isCloseTo(-100, offset(1e-9));
  }

  @Test
  void levelIsZero() {
    assertThat(ReplicaLag.catchUpRate(behind(0, 0, 0))).isZero();
    assertThat(ReplicaLag.catchUpRate(behind(500, 500, 500))).isZero();
  }

  @Test
  void afterAPauseTheBurstThatFillsTheSocketBuffersIsLeftOut() {
    // Paused (growing), resumed at the peak: 1,000,000 bytes go into the socket buffers at once,
    // then the replica
    // reads 100,000 bytes a second.
    List<Sample> samples =
        behind(1_000_000, 2_000_000, 3_000_000, 2_000_000, 1_900_000, 1_800_000, 1_700_000);
    assertThat(ReplicaLag.catchUpRate(samples)).isCloseTo(100_000, offset(1e-6));
  }

  @Test
  void aPeakWithOneSampleAfterItUsesThePeakOnceItIsASecondOld() {
    assertThat(ReplicaLag.catchUpRate(behind(100, 200, 300, 100))).isCloseTo(200, offset(1e-9));
  }

  @Test
  void theNewestOfEqualPeaksCounts() {
    assertThat(ReplicaLag.catchUpRate(behind(300, 100, 300, 250, 200))).isCloseTo(50, offset(1e-9));
  }

  @Test
  void twoSamplesGiveTheirDifference() {
    assertThat(
            ReplicaLag.catchUpRate(List.of(new Sample(0, 0, 1000), new Sample(SECOND / 2, 0, 500))))
        .isCloseTo(1000, offset(1e-9));
  }
}
