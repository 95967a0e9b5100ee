package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.Test;

/**
 * {@link Time#sleep} follows the clock it is called on: a manual clock's waiter wakes when the
 * clock is moved.
 */
class TimeTest {
  @Test
  void aSleepOnAManualClockEndsWhenTheClockIsMovedPastIt() throws Exception {
    ManualTime time = new ManualTime(0);
    CompletableFuture<Void> slept =
        CompletableFuture.runAsync(
            () -> {
              try {
                time.sleep(Duration.ofSeconds(30));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(time.nextWait(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(30));
    time.advance(Duration.ofSeconds(29));
    assertThat(slept).as("one second short").isNotDone();
    time.advance(Duration.ofSeconds(1));
    assertThat(slept.get(10, TimeUnit.SECONDS)).isNull();
  }

  @Test
  void aSleepIsInterruptible() throws Exception {
    ManualTime time = new ManualTime(0);
    Thread waiter =
        new Thread(
            () -> {
              try {
                time.sleep(Duration.ofHours(1));
              } catch (InterruptedException expected) {
                Thread.currentThread().interrupt();
              }
            });
    waiter.start();
    time.nextWait(Duration.ofSeconds(10));
    waiter.interrupt();
    waiter.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(waiter.isAlive()).isFalse();
  }
}
