package org.binlogrelay.protocol.handshake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

class HandshakeV10Test {

  @Test
  void decodesMysql97Greeting() {
    HandshakeV10 g = HandshakeV10.decode(RealHandshakes.MYSQL_97_GREETING);
    assertThat(g.serverVersion()).isEqualTo("9.7.4-2");
    assertThat(g.connectionId()).isEqualTo(35);
    assertThat(g.scramble()).hasSize(20).doesNotContain((byte) 0);
    assertThat(g.characterSet()).isEqualTo(255);
    assertThat(g.statusFlags()).isEqualTo(2);
    assertThat(g.authPluginName()).isEqualTo("caching_sha2_password");
    assertThat(CapabilityFlags.names(g.capabilities()))
        .contains("PROTOCOL_41", "SSL", "PLUGIN_AUTH", "DEPRECATE_EOF", "QUERY_ATTRIBUTES");
  }

  @Test
  void reEncodingMysqlsGreetingGivesItsBytes() {
    HandshakeV10 g = HandshakeV10.decode(RealHandshakes.MYSQL_97_GREETING);
    assertThat(g.encode()).isEqualTo(RealHandshakes.MYSQL_97_GREETING);
  }

  @Test
  void roundTripsAndLaysOutTheScrambleInTwoParts() {
    byte[] scramble = new byte[20];
    for (int i = 0; i < 20; i++) {
      scramble[i] = (byte) (i + 1);
    }
    HandshakeV10 g =
        new HandshakeV10(
            "8.4.0-relay", 0xfffffffeL, scramble, 0xffff_f7ff, 45, 2, "mysql_native_password");
    byte[] bytes = g.encode();
    assertThat(HandshakeV10.decode(bytes)).isEqualTo(g);
    int at = 1 + "8.4.0-relay".length() + 1 + 4;
    assertThat(Arrays.copyOfRange(bytes, at, at + 8)).isEqualTo(Arrays.copyOf(scramble, 8));
    assertThat(bytes[at + 8]).isZero();
    assertThat(bytes[at + 8 + 1 + 2 + 1 + 2 + 2])
        .as("auth plugin data length: scramble + NUL")
        .isEqualTo((byte) 21);
    assertThat(bytes[bytes.length - 1]).as("plugin name NUL-terminated").isZero();
  }

  @Test
  void refusesAnErrPacketAndTruncation() {
    assertThatThrownBy(() -> HandshakeV10.decode(new byte[] {(byte) 0xff, 0x10, 0x04}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("protocol version 255");
    byte[] cut = Arrays.copyOf(RealHandshakes.MYSQL_97_GREETING, 20);
    assertThatThrownBy(() -> HandshakeV10.decode(cut)).isInstanceOf(ProtocolException.class);
  }

  /**
   * Found by HandshakeFuzzTest#serverPackets
   * (HandshakeFuzzTestInputs/serverPackets/crash-26afbce0...): a greeting whose server version is
   * over 255 bytes once decoded (here bytes that are not UTF-8, each decoded to a three-byte
   * U+FFFD), or whose auth plugin data is 255 bytes without a NUL, was read and then refused by the
   * record's constructor with IllegalArgumentException instead of ProtocolException.
   */
  @Test
  void refusesAnOverlongVersionOrScrambleAsAProtocolError() {
    byte[] greeting = RealHandshakes.MYSQL_97_GREETING;
    int versionEnd = 1 + "9.7.4-2".length();
    byte[] longVersion = new byte[greeting.length + 100];
    longVersion[0] = 10;
    Arrays.fill(longVersion, 1, 101, (byte) 0xff);
    System.arraycopy(greeting, 1, longVersion, 101, greeting.length - 1);
    assertThatThrownBy(() -> HandshakeV10.decode(longVersion))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("server version of more than 255 bytes");

    int dataLength = versionEnd + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2;
    byte[] longScramble = Arrays.copyOf(greeting, dataLength + 1 + 10 + 247);
    longScramble[dataLength] = (byte) 255;
    Arrays.fill(longScramble, dataLength + 1 + 10, longScramble.length, (byte) 'x');
    assertThatThrownBy(() -> HandshakeV10.decode(longScramble))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("auth plugin data of 255 bytes");
  }

  @Test
  void refusesBadArguments() {
    assertThatThrownBy(() -> new HandshakeV10("x\0y", 1, new byte[20], 0, 0, 0, "p"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new HandshakeV10("x", 1, new byte[4], 0, 0, 0, "p"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
