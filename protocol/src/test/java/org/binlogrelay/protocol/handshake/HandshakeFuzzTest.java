package org.binlogrelay.protocol.handshake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.packet.EofPacket;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.testing.AllocationBudget;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz targets for the connection phase (docs/fuzzing.md). Each input is one packet payload.
 *
 * <ul>
 *   <li>{@link #clientHandshakeResponse}: what a replica sends first (HandshakeResponse41, or the
 *       SSLRequest before it), decoded by the relay under {@link HandshakeLimits#DEFAULT} and under
 *       tight limits.
 *   <li>{@link #serverPackets}: what a server sends during the handshake (greeting, auth switch,
 *       auth more data, OK, ERR, EOF), as the relay's clients and tools decode it.
 * </ul>
 *
 * Contract: a payload is decoded or refused with {@link ProtocolException} only; every limit holds
 * for what is decoded; allocation stays proportional to the payload whatever its length fields
 * claim; and what is decoded encodes to bytes that decode to the same value.
 */
class HandshakeFuzzTest {
  private static final long FIXED_BUDGET = 1 << 20;
  private static final HandshakeLimits TIGHT = new HandshakeLimits(8, 20, 8, 21, 64, 3);
  private static final HandshakeLimits UNLIMITED =
      new HandshakeLimits(1 << 24, 1 << 24, 1 << 24, 1 << 24, 1 << 24, 1 << 24);

  static Stream<Arguments> clientHandshakeResponse() {
    List<byte[]> seeds = new ArrayList<>();
    seeds.add(RealHandshakes.MYSQL_97_CLIENT_RESPONSE);
    seeds.add(RealHandshakes.MARIADB_CLIENT_RESPONSE);
    int caps =
        CapabilityFlags.CLIENT_PROTOCOL_41
            | CapabilityFlags.CLIENT_SECURE_CONNECTION
            | CapabilityFlags.CLIENT_CONNECT_WITH_DB
            | CapabilityFlags.CLIENT_PLUGIN_AUTH;
    seeds.add(
        new HandshakeResponse41(
                caps, 1 << 24, 45, "repl", new byte[20], "db", "mysql_native_password", Map.of())
            .encode());
    seeds.add(
        new HandshakeResponse41(
                CapabilityFlags.CLIENT_PROTOCOL_41,
                0,
                8,
                "old",
                "pw".getBytes(StandardCharsets.UTF_8),
                null,
                "",
                Map.of())
            .encode());
    seeds.add(new SslRequest(caps | CapabilityFlags.CLIENT_SSL, 1 << 24, 255).encode());
    return seeds.stream().map(s -> arguments((Object) s));
  }

  /**
   * A replica's first packet: an SSLRequest, or a HandshakeResponse41 decoded under the default and
   * under tight limits; each field within its limit; and the decoded response encodes to bytes that
   * decode to it.
   */
  @MethodSource
  @FuzzTest
  void clientHandshakeResponse(byte[] payload) {
    if (SslRequest.matches(payload)) {
      SslRequest ssl = SslRequest.decode(payload);
      assertThat(SslRequest.decode(ssl.encode())).isEqualTo(ssl);
    }
    for (HandshakeLimits limits : List.of(HandshakeLimits.DEFAULT, TIGHT)) {
      HandshakeResponse41 response =
          decodeOrNull(
              "HandshakeResponse41.decode",
              payload.length,
              () -> HandshakeResponse41.decode(payload, limits));
      if (response == null) {
        continue;
      }
      assertThat(response.has(CapabilityFlags.CLIENT_PROTOCOL_41)).isTrue();
      assertThat(utf8(response.user())).isLessThanOrEqualTo(utf8Bound(limits.maxUserNameBytes()));
      assertThat(response.authResponse().length)
          .isLessThanOrEqualTo(utf8Bound(limits.maxAuthResponseBytes()));
      if (response.database() != null) {
        assertThat(utf8(response.database()))
            .isLessThanOrEqualTo(utf8Bound(limits.maxDatabaseBytes()));
      }
      assertThat(utf8(response.authPluginName()))
          .isLessThanOrEqualTo(utf8Bound(limits.maxPluginNameBytes()));
      assertThat(response.connectAttributes().size())
          .isLessThanOrEqualTo(limits.maxConnectAttributes());
      long attributeBytes =
          response.connectAttributes().entrySet().stream()
              .mapToLong(e -> e.getKey().length() + e.getValue().length())
              .sum();
      assertThat(attributeBytes).isLessThanOrEqualTo(limits.maxConnectAttributesBytes());

      HandshakeResponse41 again = HandshakeResponse41.decode(response.encode(), UNLIMITED);
      String database =
          response.database() == null && response.has(CapabilityFlags.CLIENT_CONNECT_WITH_DB)
              ? ""
              : response.database();
      assertThat(again)
          .as("decode(encode(r)) for %s", response)
          .isEqualTo(
              new HandshakeResponse41(
                  response.capabilities(),
                  response.maxPacketSize(),
                  response.characterSet(),
                  response.user(),
                  response.authResponse(),
                  database,
                  response.authPluginName(),
                  response.connectAttributes()));
    }
  }

  static Stream<Arguments> serverPackets() {
    byte[] scramble = HexFormat.of().parseHex("7874654f215e0b777d05131b141d54135b487561");
    byte[] data = new byte[21];
    System.arraycopy(scramble, 0, data, 0, 20);
    List<byte[]> seeds = new ArrayList<>();
    seeds.add(RealHandshakes.MYSQL_97_GREETING);
    seeds.add(
        new HandshakeV10(
                "10.11.19-MariaDB-log",
                7,
                scramble,
                0xf7fe
                    | CapabilityFlags.CLIENT_PLUGIN_AUTH
                    | CapabilityFlags.CLIENT_SECURE_CONNECTION,
                45,
                2,
                "mysql_native_password")
            .encode());
    seeds.add(new AuthSwitchRequest("caching_sha2_password", data).encode());
    seeds.add(AuthMoreData.of(4).encode());
    seeds.add(
        new AuthMoreData(
                "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----\n"
                    .getBytes(StandardCharsets.US_ASCII))
            .encode());
    seeds.add(OkPacket.ok().encode());
    seeds.add(
        new ErrPacket(
                1045, "28000", "Access denied for user 'repl'@'localhost' (using password: YES)")
            .encode());
    seeds.add(new EofPacket(0, 2).encode());
    return seeds.stream().map(s -> arguments((Object) s));
  }

  /**
   * A server's packet during the handshake, offered to every decoder of that phase: each decodes it
   * or refuses it with ProtocolException, within its allocation budget; what decodes, encodes to
   * bytes that decode to the same value (a greeting only with MySQL's 20-byte scramble, the one
   * shape the encoder writes).
   */
  @MethodSource
  @FuzzTest
  void serverPackets(byte[] payload) {
    HandshakeV10 greeting =
        decodeOrNull("HandshakeV10.decode", payload.length, () -> HandshakeV10.decode(payload));
    if (greeting != null) {
      assertThat(greeting.scramble().length).isBetween(8, 254);
      if (greeting.scramble().length == HandshakeV10.SCRAMBLE_LENGTH
          && greeting.has(CapabilityFlags.CLIENT_SECURE_CONNECTION)) {
        HandshakeV10 again = HandshakeV10.decode(greeting.encode());
        String plugin =
            greeting.has(CapabilityFlags.CLIENT_PLUGIN_AUTH) ? greeting.authPluginName() : "";
        assertThat(again)
            .isEqualTo(
                new HandshakeV10(
                    greeting.serverVersion(),
                    greeting.connectionId(),
                    greeting.scramble(),
                    greeting.capabilities(),
                    greeting.characterSet(),
                    greeting.statusFlags(),
                    plugin));
      }
    }
    if (AuthSwitchRequest.isAuthSwitch(payload)) {
      AuthSwitchRequest request =
          decodeOrNull(
              "AuthSwitchRequest.decode", payload.length, () -> AuthSwitchRequest.decode(payload));
      if (request != null) {
        assertThat(AuthSwitchRequest.decode(request.encode())).isEqualTo(request);
      }
    }
    if (AuthMoreData.isAuthMoreData(payload)) {
      AuthMoreData more = AuthMoreData.decode(payload);
      assertThat(more.encode()).isEqualTo(payload);
    }
    if (OkPacket.isOk(payload)
        || (payload.length > 0 && (payload[0] & 0xff) == OkPacket.EOF_HEADER)) {
      OkPacket ok = decodeOrNull("OkPacket.decode", payload.length, () -> OkPacket.decode(payload));
      if (ok != null) {
        assertThat(OkPacket.decode(ok.encode())).isEqualTo(ok);
      }
    }
    if (ErrPacket.isErr(payload)) {
      ErrPacket err =
          decodeOrNull("ErrPacket.decode", payload.length, () -> ErrPacket.decode(payload));
      if (err != null) {
        assertThat(ErrPacket.decode(err.encode())).isEqualTo(err);
      }
    }
    if (EofPacket.isEof(payload)) {
      EofPacket eof =
          decodeOrNull("EofPacket.decode", payload.length, () -> EofPacket.decode(payload));
      if (eof != null) {
        assertThat(EofPacket.decode(eof.encode())).isEqualTo(eof);
      }
    }
  }

  /**
   * The decoded value, or null if refused with a ProtocolException; any other exception fails the
   * target.
   */
  private static <T> T decodeOrNull(String what, int length, Supplier<T> decode) {
    try {
      return AllocationBudget.of(FIXED_BUDGET, 64, length).check(what, decode);
    } catch (ProtocolException refused) {
      assertThat(refused.getMessage()).isNotBlank();
      assertThat(refused.getMessage().length()).as("message of %s", what).isLessThan(1024);
      return null;
    }
  }

  private static int utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  /** Invalid UTF-8 bytes decode to U+FFFD, three bytes each when encoded again. */
  private static int utf8Bound(int bytes) {
    return 3 * bytes;
  }
}
