package org.binlogrelay.protocol.handshake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.junit.jupiter.api.Test;

class HandshakeResponse41Test {
  private static final HandshakeLimits LIMITS = HandshakeLimits.DEFAULT;

  @Test
  void decodesTheMysql97Client() {
    HandshakeResponse41 r =
        HandshakeResponse41.decode(RealHandshakes.MYSQL_97_CLIENT_RESPONSE, LIMITS);
    assertThat(r.user()).isEqualTo("test");
    assertThat(r.authPluginName()).isEqualTo("caching_sha2_password");
    assertThat(r.authResponse()).hasSize(32);
    assertThat(r.database()).isNull();
    assertThat(r.characterSet()).isEqualTo(255);
    assertThat(r.has(CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)).isTrue();
    assertThat(r.connectAttributes())
        .containsEntry("_client_name", "libmysql")
        .containsEntry("program_name", "mysql")
        .containsEntry("_client_version", "9.7.4");
  }

  @Test
  void decodesMariadbConnectorC() {
    HandshakeResponse41 r =
        HandshakeResponse41.decode(RealHandshakes.MARIADB_CLIENT_RESPONSE, LIMITS);
    assertThat(r.user()).isEqualTo("test");
    assertThat(r.authResponse()).hasSize(32);
    assertThat(r.connectAttributes())
        .containsEntry("_client_name", "libmariadb")
        .containsEntry("_server_host", "127.0.0.1");
  }

  @Test
  void reEncodingGivesTheClientsBytes() {
    for (byte[] real :
        new byte[][] {
          RealHandshakes.MYSQL_97_CLIENT_RESPONSE, RealHandshakes.MARIADB_CLIENT_RESPONSE
        }) {
      HandshakeResponse41 r = HandshakeResponse41.decode(real, LIMITS);
      byte[] again = r.encode();
      // The filler is zero in both; MariaDB's client also writes zero extended capabilities to a
      // MySQL server.
      assertThat(again).isEqualTo(real);
    }
  }

  @Test
  void oneByteAuthLengthAndDatabaseWithoutLenencClientData() {
    int caps =
        CapabilityFlags.CLIENT_PROTOCOL_41
            | CapabilityFlags.CLIENT_SECURE_CONNECTION
            | CapabilityFlags.CLIENT_CONNECT_WITH_DB
            | CapabilityFlags.CLIENT_PLUGIN_AUTH;
    HandshakeResponse41 r =
        new HandshakeResponse41(
            caps, 1 << 24, 33, "repl", new byte[20], "db1", "mysql_native_password", Map.of());
    assertThat(HandshakeResponse41.decode(r.encode(), LIMITS)).isEqualTo(r);
  }

  @Test
  void oldClientsMayLeaveOutTrailingFields() {
    int caps =
        CapabilityFlags.CLIENT_PROTOCOL_41
            | CapabilityFlags.CLIENT_SECURE_CONNECTION
            | CapabilityFlags.CLIENT_PLUGIN_AUTH
            | CapabilityFlags.CLIENT_CONNECT_ATTRS;
    byte[] bytes =
        new ByteWriter()
            .u32(caps)
            .u32(0)
            .u8(8)
            .bytes(new byte[23])
            .nulString("u")
            .u8(0)
            .toByteArray();
    HandshakeResponse41 r = HandshakeResponse41.decode(bytes, LIMITS);
    assertThat(r.authPluginName()).isEmpty();
    assertThat(r.connectAttributes()).isEmpty();
  }

  @Test
  void refusesAUserNameOverTheLimitWithoutScanningFurther() {
    byte[] bytes =
        new ByteWriter()
            .u32(CapabilityFlags.CLIENT_PROTOCOL_41)
            .u32(0)
            .u8(8)
            .bytes(new byte[23])
            .string("x".repeat(200))
            .u8(0)
            .toByteArray();
    assertThatThrownBy(
            () -> HandshakeResponse41.decode(bytes, new HandshakeLimits(128, 64, 64, 64, 64, 4)))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("user name longer than 128 bytes");
  }

  @Test
  void refusesALenencAuthResponseOverTheLimitBeforeReadingIt() {
    int caps =
        CapabilityFlags.CLIENT_PROTOCOL_41 | CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
    byte[] bytes =
        new ByteWriter()
            .u32(caps)
            .u32(0)
            .u8(8)
            .bytes(new byte[23])
            .nulString("u")
            .u8(0xfe)
            .u64(1L << 40)
            .toByteArray();
    assertThatThrownBy(() -> HandshakeResponse41.decode(bytes, LIMITS))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("auth response of 1099511627776 bytes exceeds the limit of 2048");
  }

  /**
   * Found by HandshakeFuzzTest#clientHandshakeResponse
   * (HandshakeFuzzTestInputs/clientHandshakeResponse/ crash-0205578e...): a length-encoded length
   * of 2^63 or more reads as a negative long, passed the limit check and was cut to an int, so an
   * auth response of up to a whole packet got through a limit of 20 bytes.
   */
  @Test
  void refusesALenencLengthOfTwoToTheSixtyThirdOrMore() {
    int caps =
        CapabilityFlags.CLIENT_PROTOCOL_41 | CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
    byte[] bytes =
        new ByteWriter()
            .u32(caps)
            .u32(0)
            .u8(8)
            .bytes(new byte[23])
            .nulString("u")
            .u8(0xfe)
            .u64(0xc3c3c30000000072L)
            .bytes(new byte[114])
            .toByteArray();
    assertThatThrownBy(
            () -> HandshakeResponse41.decode(bytes, new HandshakeLimits(8, 20, 8, 21, 64, 3)))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining(
            "auth response of 14106332862621941874 bytes exceeds the limit of 20");
    int attrCaps =
        CapabilityFlags.CLIENT_PROTOCOL_41
            | CapabilityFlags.CLIENT_SECURE_CONNECTION
            | CapabilityFlags.CLIENT_CONNECT_ATTRS;
    byte[] attributes =
        new ByteWriter()
            .u32(attrCaps)
            .u32(0)
            .u8(8)
            .bytes(new byte[23])
            .nulString("u")
            .u8(0)
            .u8(0xfe)
            .u64(-1L)
            .bytes(new byte[8])
            .toByteArray();
    assertThatThrownBy(() -> HandshakeResponse41.decode(attributes, LIMITS))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining(
            "connection attributes of 18446744073709551615 bytes exceeds the limit");
  }

  @Test
  void refusesTooManyOrTooLargeConnectionAttributes() {
    int caps =
        CapabilityFlags.CLIENT_PROTOCOL_41
            | CapabilityFlags.CLIENT_SECURE_CONNECTION
            | CapabilityFlags.CLIENT_PLUGIN_AUTH
            | CapabilityFlags.CLIENT_CONNECT_ATTRS;
    Map<String, String> attributes = new LinkedHashMap<>();
    for (int i = 0; i < 5; i++) {
      attributes.put("k" + i, "v");
    }
    byte[] bytes =
        new HandshakeResponse41(caps, 0, 8, "u", new byte[0], null, "p", attributes).encode();
    assertThatThrownBy(
            () -> HandshakeResponse41.decode(bytes, new HandshakeLimits(32, 64, 64, 64, 1000, 4)))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("more than 4 connection attributes");
    assertThatThrownBy(
            () -> HandshakeResponse41.decode(bytes, new HandshakeLimits(32, 64, 64, 64, 10, 10)))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("connection attributes of 25 bytes exceeds the limit of 10");
  }

  @Test
  void refusesAttributesThatRunPastTheirBlock() {
    int caps =
        CapabilityFlags.CLIENT_PROTOCOL_41
            | CapabilityFlags.CLIENT_SECURE_CONNECTION
            | CapabilityFlags.CLIENT_CONNECT_ATTRS;
    byte[] bytes =
        new ByteWriter()
            .u32(caps)
            .u32(0)
            .u8(8)
            .bytes(new byte[23])
            .nulString("u")
            .u8(0)
            .u8(3)
            .u8(5)
            .string("abc")
            .toByteArray();
    assertThatThrownBy(() -> HandshakeResponse41.decode(bytes, LIMITS))
        .isInstanceOf(ProtocolException.class);
  }

  @Test
  void refusesPre41ClientsAndMissingTerminators() {
    byte[] old =
        new ByteWriter().u32(0).u32(0).u8(8).bytes(new byte[23]).nulString("u").toByteArray();
    assertThatThrownBy(() -> HandshakeResponse41.decode(old, LIMITS))
        .hasMessageContaining("CLIENT_PROTOCOL_41");
    byte[] noNul =
        new ByteWriter()
            .u32(CapabilityFlags.CLIENT_PROTOCOL_41)
            .u32(0)
            .u8(8)
            .bytes(new byte[23])
            .string("user")
            .toByteArray();
    assertThatThrownBy(() -> HandshakeResponse41.decode(noNul, LIMITS))
        .hasMessageContaining("no NUL terminator");
  }

  @Test
  void everyTruncationIsAProtocolExceptionNeverAnotherException() {
    byte[] real = RealHandshakes.MYSQL_97_CLIENT_RESPONSE;
    for (int n = 0; n < real.length; n++) {
      byte[] cut = Arrays.copyOf(real, n);
      try {
        HandshakeResponse41.decode(cut, LIMITS);
      } catch (ProtocolException expected) {
        // fine: a cut packet is either refused or (past the plugin name) read as an old client's
      }
    }
  }

  @Test
  void sslRequestIsTheFirst32BytesWithSsl() {
    SslRequest ssl = new SslRequest(CapabilityFlags.CLIENT_PROTOCOL_41, 1 << 24, 255);
    byte[] bytes = ssl.encode();
    assertThat(bytes).hasSize(32);
    assertThat(SslRequest.matches(bytes)).isTrue();
    assertThat(SslRequest.decode(bytes).capabilities())
        .isEqualTo(CapabilityFlags.CLIENT_PROTOCOL_41 | CapabilityFlags.CLIENT_SSL);
    assertThat(SslRequest.matches(RealHandshakes.MYSQL_97_CLIENT_RESPONSE)).isFalse();
    byte[] noSsl = Arrays.copyOf(bytes, 32);
    noSsl[1] &= (byte) ~(CapabilityFlags.CLIENT_SSL >>> 8);
    assertThat(SslRequest.matches(noSsl)).isFalse();
  }

  @Test
  void authSwitchAndMoreDataRoundTrip() {
    AuthSwitchRequest s = new AuthSwitchRequest("mysql_native_password", new byte[21]);
    assertThat(AuthSwitchRequest.isAuthSwitch(s.encode())).isTrue();
    assertThat(AuthSwitchRequest.decode(s.encode())).isEqualTo(s);
    AuthMoreData m = AuthMoreData.of(4);
    assertThat(m.encode()).containsExactly(1, 4);
    assertThat(AuthMoreData.decode(m.encode())).isEqualTo(m);
    assertThatThrownBy(() -> AuthMoreData.decode(new byte[] {0}))
        .isInstanceOf(ProtocolException.class);
  }
}
