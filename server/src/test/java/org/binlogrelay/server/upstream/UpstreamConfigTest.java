package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UpstreamConfigTest {
  private static UpstreamConfig.Builder builder() {
    return UpstreamConfig.builder("db1", 3306, "repl", "s3cret").serverId(42);
  }

  @Test
  void defaults() {
    UpstreamConfig c = builder().build();
    assertThat(c.heartbeatPeriod()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.deadAfter()).isEqualTo(Duration.ofSeconds(3));
    assertThat(c.start()).isEqualTo(StartPosition.earliest());
    assertThat(c.replicaUuid())
        .as("stable per server_id")
        .isEqualTo(UpstreamConfig.defaultReplicaUuid(42))
        .isNotEqualTo(UpstreamConfig.defaultReplicaUuid(43));
    assertThat(c.reportHost()).isEmpty();
  }

  @Test
  void toStringHidesThePassword() {
    assertThat(builder().build().toString()).doesNotContain("s3cret").contains("repl@db1:3306");
  }

  @Test
  void refusesOutOfRangeValues() {
    assertThatThrownBy(() -> UpstreamConfig.builder("db1", 3306, "repl", "x").build())
        .hasMessageContaining("server_id 0");
    assertThatThrownBy(() -> builder().serverId(1L << 32).build())
        .hasMessageContaining("server_id");
    assertThatThrownBy(() -> UpstreamConfig.builder("db1", 0, "repl", "x").serverId(1).build())
        .hasMessageContaining("port 0");
    assertThatThrownBy(() -> builder().heartbeatPeriod(Duration.ZERO).build())
        .hasMessageContaining("heartbeat");
    assertThatThrownBy(() -> builder().heartbeatPeriod(Duration.ofSeconds(5_000_000)).build())
        .hasMessageContaining("heartbeat");
    assertThatThrownBy(() -> builder().deadAfterHeartbeats(1).build())
        .hasMessageContaining("at least 2");
    assertThatThrownBy(() -> builder().report("h".repeat(300), 1).build())
        .hasMessageContaining("250 bytes");
  }

  @Test
  void aStartFileMustBeAtOffsetFour() {
    assertThat(StartPosition.file("binlog.000007", 4)).hasToString("binlog.000007:4");
    assertThatThrownBy(() -> StartPosition.file("binlog.000007", 1234))
        .hasMessageContaining("whole binlog files")
        .hasMessageContaining("use binlog.000007:4");
    assertThatThrownBy(() -> StartPosition.file("../x", 4))
        .hasMessageContaining("binlog file name");
  }
}
