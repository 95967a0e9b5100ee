package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Last_IO_Errno from the replicator's failure text. */
class UpstreamReportTest {
  @Test
  void theprimarysErrorNumberElseConnectionFailed() {
    assertThat(UpstreamReport.errno("")).isZero();
    assertThat(
            UpstreamReport.errno(
                "primary 127.0.0.1:3306 ended the dump: error 1236 (HY000): Could not find"
                    + " first log file name in binary log index file"))
        .isEqualTo(1236);
    assertThat(
            UpstreamReport.errno(
                "primary 127.0.0.1:3306 did not authenticate user 'repl': error 1045 (28000):"
                    + " Access denied"))
        .isEqualTo(1045);
    assertThat(UpstreamReport.errno("Connection refused")).isEqualTo(2003);
  }
}
