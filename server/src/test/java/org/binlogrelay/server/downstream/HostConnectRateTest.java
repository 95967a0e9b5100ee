package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.Test;

class HostConnectRateTest {
  private final ManualTime now = new ManualTime(0);

  @Test
  void aHostMayUseTenSecondsOfItsRateAtOnceThenTheRate() {
    HostConnectRate rate = new HostConnectRate(5, now, 100);
    assertThat(rate.burst()).isEqualTo(50);
    for (int i = 0; i < 50; i++) {
      assertThat(rate.admit("10.0.0.1")).as("connection %s", i).isTrue();
    }
    assertThat(rate.admit("10.0.0.1")).isFalse();
    assertThat(rate.admit("10.0.0.2")).as("other hosts have their own allowance").isTrue();
    now.advance(Duration.ofMillis(200)); // 0.2 s: one connection at 5 a second
    assertThat(rate.admit("10.0.0.1")).isTrue();
    assertThat(rate.admit("10.0.0.1")).isFalse();
    now.advance(Duration.ofHours(1)); // an hour: back to a full burst, not more
    for (int i = 0; i < 50; i++) {
      assertThat(rate.admit("10.0.0.1")).isTrue();
    }
    assertThat(rate.admit("10.0.0.1")).isFalse();
  }

  @Test
  void aFloodOfAddressesIsRememberedBoundedly() {
    HostConnectRate rate = new HostConnectRate(1, now, 3);
    for (int i = 0; i < 10; i++) {
      assertThat(rate.admit("a")).isTrue();
    }
    assertThat(rate.admit("a")).isFalse();
    rate.admit("b");
    rate.admit("c");
    rate.admit("d"); // forgets "a", the least recently seen
    assertThat(rate.admit("a")).as("a forgotten host starts again with a full bucket").isTrue();
  }

  @Test
  void refusesNonsense() {
    assertThatThrownBy(() -> new HostConnectRate(0, now, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new HostConnectRate(1, now, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
