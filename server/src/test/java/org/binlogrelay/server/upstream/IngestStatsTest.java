package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.net.SocketTimeoutException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Seconds behind the source, as a DBA reads Seconds_Behind_Source. */
class IngestStatsTest {
  private static final long NOW = 1_800_000_000_000L;

  private static IngestStats stats(
      long immediateMicros, long originalMicros, long headerSeconds, boolean heartbeat) {
    return new IngestStats(
        "u:1", immediateMicros, originalMicros, headerSeconds, headerSeconds, heartbeat, Map.of());
  }

  @Test
  void nowMinusTheNewestCommitTimeWithMicrosecondPrecision() {
    IngestStats s = stats(NOW * 1000 - 2_500_000, NOW * 1000 - 4_000_000, NOW / 1000 - 3, false);
    assertThat(s.secondsBehind(true, NOW, false)).isEqualTo(2.5);
    assertThat(s.secondsBehind(true, NOW, true)).isEqualTo(4.0);
  }

  @Test
  void theHeaderTimestampWithoutCommitTimestamps() {
    assertThat(stats(0, 0, NOW / 1000 - 7, false).secondsBehind(true, NOW, false)).isEqualTo(7.0);
  }

  @Test
  void zeroAfterAHeartbeatUnknownWhenNotStreamingOrNothingReceived() {
    assertThat(stats(NOW * 1000 - 9_000_000, 0, 0, true).secondsBehind(true, NOW, false)).isZero();
    assertThat(stats(NOW * 1000 - 9_000_000, 0, 0, false).secondsBehind(false, NOW, false))
        .isNull();
    assertThat(stats(0, 0, 0, false).secondsBehind(true, NOW, false)).isNull();
    assertThat(stats(NOW * 1000 + 1_000_000, 0, 0, false).secondsBehind(true, NOW, false))
        .as("clock skew")
        .isZero();
  }

  @Test
  void failuresAreSortedByKind() {
    assertThat(IngestStats.FailureKind.of(new SocketTimeoutException()))
        .isEqualTo(IngestStats.FailureKind.TIMEOUT);
    assertThat(IngestStats.FailureKind.of(new EOFException()))
        .isEqualTo(IngestStats.FailureKind.NETWORK);
    assertThat(
            IngestStats.FailureKind.of(new PrimaryErrorException("x", 1236, "HY000", "purged", "")))
        .isEqualTo(IngestStats.FailureKind.PRIMARY_ERROR);
    assertThat(IngestStats.FailureKind.of(new IllegalStateException()))
        .isEqualTo(IngestStats.FailureKind.OTHER);
  }
}
