package org.binlogrelay.server.downstream.account;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {
  private final ManualTime clock =
      new ManualTime(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
  private final LoginThrottle throttle =
      new LoginThrottle(clock, 3, Duration.ofMinutes(1), Duration.ofMinutes(5), 2);

  @Test
  void blocksAfterMaxFailuresWithinTheWindowUntilTheBlockEnds() {
    throttle.recordFailure("h");
    throttle.recordFailure("h");
    assertThat(throttle.blockedFor("h")).isZero();
    clock.advance(Duration.ofSeconds(30));
    throttle.recordFailure("h");
    assertThat(throttle.blockedFor("h")).isEqualTo(Duration.ofMinutes(5));
    clock.advance(Duration.ofMinutes(4));
    assertThat(throttle.blockedFor("h")).isEqualTo(Duration.ofMinutes(1));
    clock.advance(Duration.ofMinutes(1));
    assertThat(throttle.blockedFor("h")).isZero();
    throttle.recordFailure("h");
    assertThat(throttle.blockedFor("h")).as("a fresh start after the block").isZero();
  }

  @Test
  void failuresOutsideTheWindowStartOver() {
    throttle.recordFailure("h");
    throttle.recordFailure("h");
    clock.advance(Duration.ofMinutes(2));
    throttle.recordFailure("h");
    assertThat(throttle.blockedFor("h")).isZero();
  }

  @Test
  void successClearsAndHostsAreIndependent() {
    throttle.recordFailure("a");
    throttle.recordFailure("a");
    throttle.recordSuccess("a");
    throttle.recordFailure("a");
    throttle.recordFailure("a");
    assertThat(throttle.blockedFor("a")).isZero();
    for (int i = 0; i < 3; i++) {
      throttle.recordFailure("b");
    }
    assertThat(throttle.blockedFor("b")).isPositive();
    assertThat(throttle.blockedFor("a")).isZero();
  }

  @Test
  void tracksAtMostMaxHosts() {
    for (int i = 0; i < 3; i++) {
      throttle.recordFailure("a");
    }
    throttle.recordFailure("b");
    throttle.recordFailure("c");
    assertThat(throttle.blockedFor("a")).as("the oldest host was forgotten").isZero();
  }
}
