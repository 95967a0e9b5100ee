package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What {@link PrimaryConnection} writes itself; the replication commands' bytes are protocol's
 * tests.
 */
class PrimaryConnectionTest {

  @Test
  void query() {
    assertThat(PrimaryConnection.comQuery("SELECT 1"))
        .startsWith(3)
        .endsWith("SELECT 1".getBytes(StandardCharsets.US_ASCII));
  }
}
