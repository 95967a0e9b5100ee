package org.binlogrelay.archive.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upload rate limiter on a manual clock: its waits are recorded and move the clock, never real
 * time.
 */
class UploadRateLimiterTest {
  private static final long MB = 1_000_000;

  private final ManualTime time = new ManualTime(1_700_000_000_000L);
  private final List<Long> waits = new ArrayList<>();

  private UploadRateLimiter limiter(long bytesPerSecond) {
    return new UploadRateLimiter(
        bytesPerSecond,
        time,
        nanos -> {
          waits.add(nanos);
          time.advance(Duration.ofNanos(nanos));
        });
  }

  @Test
  void aBurstPassesAtOnceThenEveryByteWaitsItsShareOfASecond() throws Exception {
    UploadRateLimiter l = limiter(MB);
    l.take(100_000); // the 100 ms burst of a full bucket
    assertThat(waits).isEmpty();
    l.take(50_000);
    assertThat(waits).containsExactly(50_000_000L);
    for (int i = 0; i < 10; i++) {
      l.take(100_000);
    }
    assertThat(waits).hasSize(11);
    assertThat(waits.subList(1, 11)).containsOnly(100_000_000L);
    // 1.15 MB at 1 MB/s with a 100 ms burst: 1.05 s on the clock.
    assertThat(time.nanoseconds()).isEqualTo(1_050_000_000L);
  }

  @Test
  void anIdleBucketRefillsToTheBurstOnly() throws Exception {
    UploadRateLimiter l = limiter(MB);
    l.take(100_000);
    time.advance(Duration.ofSeconds(10));
    l.take(300_000);
    assertThat(waits).containsExactly(200_000_000L);
    time.advance(Duration.ofMillis(50)); // half the next burst
    l.take(50_000);
    assertThat(waits).hasSize(1);
    l.take(10_000);
    assertThat(waits).containsExactly(200_000_000L, 10_000_000L);
  }

  @Test
  void timeTheCallerSpendsElsewhereCountsAsPaidUpToTheBurst() throws Exception {
    UploadRateLimiter l = limiter(10 * MB);
    l.take(2 * MB); // 200 ms for 2 MB beyond the first 1 MB of burst: 100 ms
    assertThat(waits).containsExactly(100_000_000L);
    time.advance(Duration.ofMillis(60)); // e.g. the server took 60 ms to answer
    l.take(MB); // due 100 ms after the last, 60 ms of which passed
    assertThat(waits).containsExactly(100_000_000L, 40_000_000L);
  }

  @Test
  void aStreamTakesTokensForWhatItReadsAndKeepsTheBytes() throws Exception {
    UploadRateLimiter l = limiter(4 * MB);
    byte[] data = new byte[10_000_000];
    new Random(7).nextBytes(data);
    byte[] copy;
    try (InputStream in = l.limit(new ByteArrayInputStream(data))) {
      int first = in.read();
      byte[] rest = in.readAllBytes();
      copy = new byte[rest.length + 1];
      copy[0] = (byte) first;
      System.arraycopy(rest, 0, copy, 1, rest.length);
    }
    assertThat(copy).isEqualTo(data);
    // 10 MB at 4 MB/s with a 0.4 MB burst: 2.4 s.
    assertThat(waits.stream().mapToLong(Long::longValue).sum()).isEqualTo(2_400_000_000L);
    assertThat(time.nanoseconds()).isEqualTo(2_400_000_000L);
  }

  @Test
  void thePacedStoreLimitsPutsAndPartsAndPassesTheRestThrough(@TempDir Path dir) throws Exception {
    UploadRateLimiter l = limiter(MB);
    ObjectStore plain = new DirectoryObjectStore(dir);
    ObjectStore paced = l.limit(plain);
    byte[] data = new byte[1_100_000];
    new Random(11).nextBytes(data);
    byte[] md5 = MessageDigest.getInstance("MD5").digest(data);
    paced.put("a", () -> new ByteArrayInputStream(data), data.length, md5, Map.of());
    assertThat(waits.stream().mapToLong(Long::longValue).sum()).isEqualTo(1_000_000_000L);
    String id = paced.createMultipart("b", Map.of());
    paced.uploadPart("b", id, 1, () -> new ByteArrayInputStream(data), data.length, md5);
    assertThat(waits.stream().mapToLong(Long::longValue).sum()).isEqualTo(2_100_000_000L);
    try (InputStream in = paced.get("a", 0, -1)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
    assertThat(paced.head("a")).isPresent();
    assertThat(paced.listParts("b", id)).hasSize(1);
    assertThat(waits.stream().mapToLong(Long::longValue).sum())
        .as("reads back are not paced")
        .isEqualTo(2_100_000_000L);
  }

  @Test
  void zeroIsUnlimitedAndNegativeIsRefused(@TempDir Path dir) throws Exception {
    UploadRateLimiter l = limiter(0);
    ObjectStore plain = new DirectoryObjectStore(dir);
    assertThat(l.limit(plain)).isSameAs(plain);
    l.take(Long.MAX_VALUE);
    assertThat(waits).isEmpty();
    assertThat(l).hasToString("unlimited");
    assertThatThrownBy(() -> limiter(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("upload rate -1 < 0");
  }

  @Test
  void anInterruptedWaitEndsTheReadAndKeepsTheInterrupt() {
    UploadRateLimiter l =
        new UploadRateLimiter(
            1,
            time,
            nanos -> {
              throw new InterruptedException();
            });
    try {
      assertThatThrownBy(() -> l.take(10)).isInstanceOf(InterruptedIOException.class);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void theUploadConfigCarriesTheRate() {
    UploadConfig c = UploadConfig.defaults("p/", "1@host");
    assertThat(c.maxUploadRate()).isZero();
    assertThat(c.withMaxUploadRate(32L << 20).maxUploadRate()).isEqualTo(32L << 20);
    assertThatThrownBy(() -> c.withMaxUploadRate(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("max upload rate -1 < 0");
  }
}
