package org.binlogrelay.protocol.query;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LikePatternTest {
  @Test
  void wildcardsEscapesAndCase() {
    assertThat(LikePattern.compile("binlog%").matches("BINLOG_CHECKSUM")).isTrue();
    assertThat(LikePattern.compile("%id").matches("server_id")).isTrue();
    assertThat(LikePattern.compile("server_id").matches("serverXid")).isTrue();
    assertThat(LikePattern.compile("server\\_id").matches("serverXid")).isFalse();
    assertThat(LikePattern.compile("server\\_id").matches("server_id")).isTrue();
    assertThat(LikePattern.compile("%").matches("")).isTrue();
    assertThat(LikePattern.compile("_").matches("")).isFalse();
    assertThat(LikePattern.compile("a%b%c").matches("aXXbYYc")).isTrue();
    assertThat(LikePattern.compile("a%b%c").matches("aXXbYY")).isFalse();
    assertThat(LikePattern.compile("10.0.0.%").matches("10.0.0.5")).isTrue();
    assertThat(LikePattern.compile("10.0.0.%").matches("10.0.1.5")).isFalse();
  }

  @Test
  void manyWildcardsStayLinear() {
    String text = "a".repeat(10_000);
    long start = System.nanoTime();
    assertThat(LikePattern.compile("%a%a%a%a%a%a%a%a%b").matches(text)).isFalse();
    assertThat(System.nanoTime() - start).isLessThan(2_000_000_000L);
  }
}
