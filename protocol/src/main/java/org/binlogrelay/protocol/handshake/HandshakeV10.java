package org.binlogrelay.protocol.handshake;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * The server's first packet, Protocol::HandshakeV10:
 *
 * <pre>
 *   u8        protocol version          always 10
 *   NUL str   server version            e.g. "8.4.0-relay"
 *   u32       connection id
 *   8         scramble part 1
 *   u8        0x00 filler
 *   u16       capability flags, low 16 bits
 *   u8        character set             collation id, low 8 bits
 *   u16       status flags
 *   u16       capability flags, high 16 bits
 *   u8        length of the auth plugin data (scramble + NUL = 21)
 *   10        reserved, zero            (MariaDB puts extended capabilities in the last 4)
 *   n         scramble part 2, max(13, length - 8) bytes, NUL-terminated
 *   NUL str   auth plugin name          e.g. "caching_sha2_password"
 * </pre>
 *
 * The scramble is what MySQL generates: 20 bytes with no NUL (old clients read part 2 as a C
 * string). Immutable; the scramble is copied in and out.
 *
 * @param serverVersion the version string clients see and parse (e.g. for RSA padding choices)
 * @param connectionId the connection id, also {@code CONNECTION_ID()}
 * @param scramble the 20-byte nonce both auth plugins use
 * @param capabilities the server's capability flags ({@link CapabilityFlags})
 * @param characterSet the server's default collation id, e.g. 255 for utf8mb4_0900_ai_ci
 * @param statusFlags server status bits ({@code SERVER_STATUS_AUTOCOMMIT} ...)
 * @param authPluginName the plugin the scramble is meant for
 */
public record HandshakeV10(
    String serverVersion,
    long connectionId,
    byte[] scramble,
    int capabilities,
    int characterSet,
    int statusFlags,
    String authPluginName) {

  public static final int PROTOCOL_VERSION = 10;

  /** Length of the scramble MySQL sends. */
  public static final int SCRAMBLE_LENGTH = 20;

  private static final int PART1_LENGTH = 8;
  private static final int MAX_VERSION_BYTES = 255;
  private static final int MAX_SCRAMBLE_BYTES = 254;

  public HandshakeV10 {
    Objects.requireNonNull(serverVersion, "serverVersion");
    Objects.requireNonNull(authPluginName, "authPluginName");
    if (serverVersion.getBytes(StandardCharsets.UTF_8).length > MAX_VERSION_BYTES
        || serverVersion.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(
          "server version '" + serverVersion + "' too long or contains NUL");
    }
    if (scramble.length < PART1_LENGTH || scramble.length > MAX_SCRAMBLE_BYTES) {
      throw new IllegalArgumentException("scramble of " + scramble.length + " bytes; need 8..254");
    }
    if (connectionId < 0 || connectionId > 0xffffffffL) {
      throw new IllegalArgumentException("connection id " + connectionId + " outside u32");
    }
    scramble = scramble.clone();
  }

  @Override
  public byte[] scramble() {
    return scramble.clone();
  }

  public boolean has(int flag) {
    return CapabilityFlags.has(capabilities, flag);
  }

  public byte[] encode() {
    int dataLength = scramble.length + 1; // the scramble goes out NUL-terminated, as MySQL sends it
    ByteWriter out = new ByteWriter(96 + serverVersion.length() + authPluginName.length());
    out.u8(PROTOCOL_VERSION).nulString(serverVersion).u32(connectionId);
    out.bytes(scramble, 0, PART1_LENGTH).u8(0);
    out.u16(capabilities & 0xffff)
        .u8(characterSet & 0xff)
        .u16(statusFlags)
        .u16(capabilities >>> 16);
    out.u8(dataLength);
    out.bytes(new byte[10]);
    int part2 = dataLength - PART1_LENGTH;
    out.bytes(scramble, PART1_LENGTH, scramble.length - PART1_LENGTH).u8(0);
    for (int i = part2; i < 13; i++) {
      out.u8(0);
    }
    out.nulString(authPluginName);
    return out.toByteArray();
  }

  /**
   * Decodes a greeting; {@link ProtocolException} if it is not protocol version 10 or is cut short.
   * A plugin name without its NUL (MySQL 5.5.7 to 5.5.9) is accepted up to the end of the packet.
   */
  public static HandshakeV10 decode(byte[] payload) {
    ByteReader in = new ByteReader(payload);
    int version = in.u8("handshake protocol version");
    if (version != PROTOCOL_VERSION) {
      throw new ProtocolException(
          "handshake: protocol version " + version + ", expected 10 (0xff would be an ERR packet)");
    }
    String serverVersion = in.nulString("handshake server version");
    if (serverVersion.getBytes(StandardCharsets.UTF_8).length > MAX_VERSION_BYTES) {
      throw new ProtocolException(
          "handshake: server version of more than " + MAX_VERSION_BYTES + " bytes");
    }
    long connectionId = in.u32("handshake connection id");
    byte[] part1 = in.bytes(PART1_LENGTH, "handshake scramble part 1");
    in.skip(1, "handshake filler");
    int capabilities = in.u16("handshake capability flags (low)");
    int charset = 0;
    int status = 0;
    byte[] part2 = new byte[0];
    String plugin = "";
    if (in.hasRemaining()) {
      charset = in.u8("handshake character set");
      status = in.u16("handshake status flags");
      capabilities |= in.u16("handshake capability flags (high)") << 16;
      int dataLength = in.u8("handshake auth plugin data length");
      in.skip(10, "handshake reserved bytes");
      if (CapabilityFlags.has(capabilities, CapabilityFlags.CLIENT_SECURE_CONNECTION)) {
        int n = Math.max(13, dataLength - PART1_LENGTH);
        part2 = in.bytes(n, "handshake scramble part 2");
        if (part2.length > 0 && part2[part2.length - 1] == 0) {
          part2 = Arrays.copyOf(part2, part2.length - 1);
        }
      }
      if (CapabilityFlags.has(capabilities, CapabilityFlags.CLIENT_PLUGIN_AUTH)
          && in.hasRemaining()) {
        int end = indexOfNul(payload, in.arrayOffset());
        plugin =
            end < 0
                ? in.string(in.remaining(), "handshake auth plugin name")
                : in.nulString("handshake auth plugin name");
      }
    }
    if (part1.length + part2.length > MAX_SCRAMBLE_BYTES) {
      throw new ProtocolException(
          "handshake: auth plugin data of "
              + (part1.length + part2.length)
              + " bytes, more than the "
              + MAX_SCRAMBLE_BYTES
              + " a length byte can announce with its NUL");
    }
    byte[] scramble = Arrays.copyOf(part1, part1.length + part2.length);
    System.arraycopy(part2, 0, scramble, part1.length, part2.length);
    return new HandshakeV10(
        serverVersion, connectionId, scramble, capabilities, charset, status, plugin);
  }

  private static int indexOfNul(byte[] b, int from) {
    for (int i = from; i < b.length; i++) {
      if (b[i] == 0) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HandshakeV10 h
        && serverVersion.equals(h.serverVersion)
        && connectionId == h.connectionId
        && Arrays.equals(scramble, h.scramble)
        && capabilities == h.capabilities
        && characterSet == h.characterSet
        && statusFlags == h.statusFlags
        && authPluginName.equals(h.authPluginName);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        serverVersion, connectionId, Arrays.hashCode(scramble), capabilities, authPluginName);
  }

  @Override
  public String toString() {
    return "HandshakeV10[version="
        + serverVersion
        + ", connectionId="
        + connectionId
        + ", capabilities="
        + CapabilityFlags.names(capabilities)
        + ", charset="
        + characterSet
        + ", plugin="
        + authPluginName
        + "]";
  }
}
