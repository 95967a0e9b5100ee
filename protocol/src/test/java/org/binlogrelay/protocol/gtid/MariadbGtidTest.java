package org.binlogrelay.protocol.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MariadbGtidTest {

  @Test
  void printsAllThreePartsUnsigned() {
    // MariaDB 10.11 printed this GTID (SET gtid_domain_id=1, server_id=4294967295,
    // gtid_seq_no=18446744073709551615) in @@gtid_binlog_pos.
    MariadbGtid max = new MariadbGtid(1, 4294967295L, -1L);
    assertThat(max).hasToString("1-4294967295-18446744073709551615");
    assertThat(max.seqNoText()).isEqualTo("18446744073709551615");
    assertThat(MariadbGtid.parse("1-4294967295-18446744073709551615")).isEqualTo(max);
    assertThat(new MariadbGtid(0, 1, 1L << 63)).hasToString("0-1-9223372036854775808");
  }

  @Test
  void parsesWithSurroundingWhitespaceAndLeadingZeros() {
    assertThat(MariadbGtid.parse(" 0-1-100\n")).isEqualTo(new MariadbGtid(0, 1, 100));
    assertThat(MariadbGtid.parse("01-001-0")).isEqualTo(new MariadbGtid(1, 1, 0));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "1-1 | expected domain-server-seq",
        "1-1-1-1 | expected domain-server-seq",
        "-1-1-1 | expected domain-server-seq",
        "a-1-1 | domain id 'a' is not a decimal number",
        "+1-1-1 | domain id '+1' is not a decimal number",
        "1--1 | server id '' is not a decimal number",
        "1- 1-1 | server id ' 1' is not a decimal number",
        "4294967296-1-1 | domain id 4294967296 exceeds 4294967295",
        "1-4294967296-1 | server id 4294967296 exceeds 4294967295",
        "0-1-18446744073709551616 | sequence number 18446744073709551616 exceeds 18446744073709551615",
        "0-1- | sequence number '' is not a decimal number",
      })
  void rejectsMalformedText(String text, String message) {
    assertThatThrownBy(() -> MariadbGtid.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("malformed MariaDB GTID '" + text + "'")
        .hasMessageContaining(message);
  }

  @Test
  void rejectsOutOfRangeIds() {
    assertThatThrownBy(() -> new MariadbGtid(-1, 0, 0)).hasMessageContaining("domain id -1");
    assertThatThrownBy(() -> new MariadbGtid(0, 1L << 32, 0))
        .hasMessageContaining("server id 4294967296");
    assertThatThrownBy(() -> MariadbGtid.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
