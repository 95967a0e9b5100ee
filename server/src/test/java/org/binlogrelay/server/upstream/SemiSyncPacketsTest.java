package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;

/**
 * The semi-sync header of event packets and the ack, byte for byte as the servers' replica plugins
 * make them.
 */
class SemiSyncPacketsTest {

  @Test
  void readsTheFlagAfterTheMagicByte() {
    assertThat(SemiSyncPackets.ackRequested(new byte[] {0, (byte) 0xef, 1, 9, 9}, "p")).isTrue();
    assertThat(SemiSyncPackets.ackRequested(new byte[] {0, (byte) 0xef, 0, 9, 9}, "p")).isFalse();
  }

  @Test
  void aPacketWithoutTheMagicByteIsAProtocolError() {
    assertThatThrownBy(() -> SemiSyncPackets.ackRequested(new byte[] {0, 0x12, 1, 9}, "p:3306"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("0xef")
        .hasMessageContaining("p:3306");
    assertThatThrownBy(() -> SemiSyncPackets.ackRequested(new byte[] {0, (byte) 0xef}, "p"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("shorter");
  }

  @Test
  void onlyAFlaggedEventPacketRestartsTheSequence() {
    assertThat(SemiSyncPackets.restartsSequence(new byte[] {0, (byte) 0xef, 1, 9})).isTrue();
    assertThat(SemiSyncPackets.restartsSequence(new byte[] {0, (byte) 0xef, 0, 9})).isFalse();
    assertThat(SemiSyncPackets.restartsSequence(new byte[] {(byte) 0xff, (byte) 0xef, 1, 9}))
        .isFalse();
    assertThat(SemiSyncPackets.restartsSequence(new byte[] {0, (byte) 0xef})).isFalse();
  }

  @Test
  void theAckIsMagicPositionAndNameWithoutNul() {
    byte[] ack = SemiSyncPackets.ack(new Position("binlog.000012", 0x0102030405L));
    byte[] name = "binlog.000012".getBytes(StandardCharsets.US_ASCII);
    assertThat(ack).hasSize(1 + 8 + name.length);
    assertThat(ack[0] & 0xff).isEqualTo(0xef);
    assertThat(ack)
        .startsWith(
            (byte) 0xef,
            (byte) 0x05,
            (byte) 0x04,
            (byte) 0x03,
            (byte) 0x02,
            (byte) 0x01,
            (byte) 0,
            (byte) 0,
            (byte) 0);
    assertThat(new String(ack, 9, name.length, StandardCharsets.US_ASCII))
        .isEqualTo("binlog.000012");
  }
}
