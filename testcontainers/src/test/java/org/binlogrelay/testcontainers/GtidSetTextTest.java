package org.binlogrelay.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.Test;

class GtidSetTextTest {
  private static final String A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  private static final String B = "8a94f357-aab4-11df-86ab-c80aa9429562";

  @Test
  void mySqlIntervals() {
    assertThat(GtidSetText.contains(A + ":1-10," + B + ":1-5", A + ":1-10")).isTrue();
    assertThat(GtidSetText.contains(A + ":1-10", A + ":3-4:6")).isTrue();
    assertThat(GtidSetText.contains(A + ":1-9", A + ":1-10")).isFalse();
    assertThat(GtidSetText.contains(A + ":1-10", B + ":1")).isFalse();
    assertThat(GtidSetText.contains(A + ":1-3:5-10", A + ":1-10")).isFalse();
    assertThat(GtidSetText.contains("", "")).isTrue();
    assertThat(GtidSetText.contains("", A + ":1")).isFalse();
  }

  @Test
  void mySqlAsServersPrintIt() {
    // @@gtid_executed breaks lines after commas; upper or lower case uuids
    assertThat(
            GtidSetText.contains(A + ":1-10,\n" + B + ":1-5", B.toUpperCase(Locale.ROOT) + ":1-5"))
        .isTrue();
  }

  @Test
  void mySqlTags() {
    assertThat(GtidSetText.contains(A + ":1-5:blue:1-3", A + ":blue:2-3")).isTrue();
    assertThat(GtidSetText.contains(A + ":1-5:blue:1-3", A + ":red:1")).isFalse();
    assertThat(GtidSetText.contains(A + ":1-5:blue:1-3", A + ":4")).isTrue();
  }

  @Test
  void mariaDbPerDomain() {
    assertThat(GtidSetText.contains("0-1-100,1-2-7", "0-1-100")).isTrue();
    assertThat(GtidSetText.contains("0-1-100,1-2-7", "0-1-101")).isFalse();
    assertThat(GtidSetText.contains("0-1-100", "1-2-1")).isFalse();
    assertThat(GtidSetText.contains("0-1-5,0-2-100", "0-2-50,1-2-0")).isFalse();
    assertThat(GtidSetText.contains("0-1-5,0-2-100,1-2-0", "0-2-50,1-2-0")).isTrue();
    assertThat(GtidSetText.contains("", "0-1-1")).isFalse();
  }
}
