package org.binlogrelay.protocol.handshake;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * The client's answer to {@link HandshakeV10}, Protocol::HandshakeResponse41:
 *
 * <pre>
 *   u32       capability flags
 *   u32       max packet size
 *   u8        character set
 *   23        filler                    (MariaDB: extended capabilities in the last 4)
 *   NUL str   user name
 *   auth response:
 *     lenenc bytes       if CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
 *     u8 length + bytes  else if CLIENT_SECURE_CONNECTION
 *     NUL str            otherwise
 *   NUL str   database                  if CLIENT_CONNECT_WITH_DB
 *   NUL str   auth plugin name          if CLIENT_PLUGIN_AUTH
 *   lenenc    attribute block length    if CLIENT_CONNECT_ATTRS, then lenenc key, lenenc value pairs
 * </pre>
 *
 * Decoding checks every length against {@link HandshakeLimits} before copying, and refuses a block
 * that runs past the packet. Trailing optional fields that old clients leave out are treated as
 * absent. Immutable; the auth response is copied in and out.
 *
 * @param capabilities the client's capability flags (not yet intersected with the server's)
 * @param maxPacketSize the largest packet the client will accept
 * @param characterSet the client's collation id
 * @param user the user name
 * @param authResponse the first auth data, for the plugin named by {@code authPluginName}
 * @param database the initial database, or null when none was given
 * @param authPluginName the client plugin that made {@code authResponse}; empty when not given
 * @param connectAttributes connection attributes in wire order ({@code _client_name}, {@code
 *     program_name} ...)
 */
public record HandshakeResponse41(
    int capabilities,
    long maxPacketSize,
    int characterSet,
    String user,
    byte[] authResponse,
    String database,
    String authPluginName,
    Map<String, String> connectAttributes) {

  private static final int FILLER = 23;

  public HandshakeResponse41 {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(authPluginName, "authPluginName");
    authResponse = authResponse.clone();
    connectAttributes = Collections.unmodifiableMap(new LinkedHashMap<>(connectAttributes));
  }

  @Override
  public byte[] authResponse() {
    return authResponse.clone();
  }

  public boolean has(int flag) {
    return CapabilityFlags.has(capabilities, flag);
  }

  /**
   * Decodes a response within {@code limits}; {@link ProtocolException} naming the field on any
   * violation.
   */
  public static HandshakeResponse41 decode(byte[] payload, HandshakeLimits limits) {
    ByteReader in = new ByteReader(payload);
    int caps = (int) in.u32("handshake response capability flags");
    if (!CapabilityFlags.has(caps, CapabilityFlags.CLIENT_PROTOCOL_41)) {
      throw new ProtocolException(
          "handshake response without CLIENT_PROTOCOL_41 (a pre-4.1 client); not supported");
    }
    long maxPacket = in.u32("handshake response max packet size");
    int charset = in.u8("handshake response character set");
    in.skip(FILLER, "handshake response filler");
    String user = nulString(in, limits.maxUserNameBytes(), "user name");
    byte[] auth;
    if (CapabilityFlags.has(caps, CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)) {
      long n = in.lenencInt("auth response length");
      checkLimit(n, limits.maxAuthResponseBytes(), "auth response");
      auth = in.bytes((int) n, "auth response");
    } else if (CapabilityFlags.has(caps, CapabilityFlags.CLIENT_SECURE_CONNECTION)) {
      int n = in.u8("auth response length");
      checkLimit(n, limits.maxAuthResponseBytes(), "auth response");
      auth = in.bytes(n, "auth response");
    } else {
      auth =
          nulString(in, limits.maxAuthResponseBytes(), "auth response")
              .getBytes(StandardCharsets.UTF_8);
    }
    String database = null;
    if (CapabilityFlags.has(caps, CapabilityFlags.CLIENT_CONNECT_WITH_DB) && in.hasRemaining()) {
      database = nulString(in, limits.maxDatabaseBytes(), "database name");
    }
    String plugin = "";
    if (CapabilityFlags.has(caps, CapabilityFlags.CLIENT_PLUGIN_AUTH) && in.hasRemaining()) {
      plugin = nulString(in, limits.maxPluginNameBytes(), "auth plugin name");
    }
    Map<String, String> attributes = Map.of();
    if (CapabilityFlags.has(caps, CapabilityFlags.CLIENT_CONNECT_ATTRS) && in.hasRemaining()) {
      attributes = attributes(in, limits);
    }
    return new HandshakeResponse41(
        caps, maxPacket, charset, user, auth, database, plugin, attributes);
  }

  private static Map<String, String> attributes(ByteReader in, HandshakeLimits limits) {
    long total = in.lenencInt("connection attributes length");
    checkLimit(total, limits.maxConnectAttributesBytes(), "connection attributes");
    in.require(total, "connection attributes");
    ByteReader block = new ByteReader(in.array(), in.arrayOffset(), (int) total);
    in.skip((int) total, "connection attributes");
    Map<String, String> attributes = new LinkedHashMap<>();
    while (block.hasRemaining()) {
      if (attributes.size() >= limits.maxConnectAttributes()) {
        throw new ProtocolException(
            "handshake response: more than "
                + limits.maxConnectAttributes()
                + " connection attributes");
      }
      String key = block.lenencString("connection attribute name");
      String value = block.lenencString("connection attribute value");
      attributes.put(key, value);
    }
    return attributes;
  }

  /**
   * A NUL-terminated string of at most {@code max} bytes; the search for the NUL stops at the
   * limit.
   */
  private static String nulString(ByteReader in, int max, String what) {
    byte[] b = in.array();
    int from = in.arrayOffset();
    int end = Math.min(from + in.remaining(), from + max + 1);
    for (int i = from; i < end; i++) {
      if (b[i] == 0) {
        return in.nulString("handshake response " + what);
      }
    }
    if (end - from > max) {
      throw new ProtocolException("handshake response: " + what + " longer than " + max + " bytes");
    }
    throw new ProtocolException(
        "handshake response: " + what + " has no NUL terminator before the end of the packet");
  }

  /**
   * {@code n} is a length-encoded integer: values of 2^63 and more come back negative and are over
   * any limit.
   */
  private static void checkLimit(long n, int max, String what) {
    if (n < 0 || n > max) {
      throw new ProtocolException(
          "handshake response: "
              + what
              + " of "
              + Long.toUnsignedString(n)
              + " bytes exceeds the limit of "
              + max);
    }
  }

  /**
   * Encodes the response the way MySQL's client library lays it out (used by tests and test
   * clients).
   */
  public byte[] encode() {
    ByteWriter out = new ByteWriter(128 + authResponse.length);
    out.u32(capabilities).u32(maxPacketSize).u8(characterSet).bytes(new byte[FILLER]);
    out.nulString(user);
    if (has(CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)) {
      out.lenencInt(authResponse.length).bytes(authResponse);
    } else if (has(CapabilityFlags.CLIENT_SECURE_CONNECTION)) {
      if (authResponse.length > 255) {
        throw new IllegalArgumentException(
            "auth response of " + authResponse.length + " bytes needs lenenc client data");
      }
      out.u8(authResponse.length).bytes(authResponse);
    } else {
      out.bytes(authResponse).u8(0);
    }
    if (has(CapabilityFlags.CLIENT_CONNECT_WITH_DB)) {
      out.nulString(database == null ? "" : database);
    }
    if (has(CapabilityFlags.CLIENT_PLUGIN_AUTH)) {
      out.nulString(authPluginName);
    }
    if (has(CapabilityFlags.CLIENT_CONNECT_ATTRS)) {
      ByteWriter block = new ByteWriter();
      connectAttributes.forEach((k, v) -> block.lenencString(k).lenencString(v));
      out.lenencInt(block.size()).bytes(block.toByteArray());
    }
    return out.toByteArray();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HandshakeResponse41 r
        && capabilities == r.capabilities
        && maxPacketSize == r.maxPacketSize
        && characterSet == r.characterSet
        && user.equals(r.user)
        && Arrays.equals(authResponse, r.authResponse)
        && Objects.equals(database, r.database)
        && authPluginName.equals(r.authPluginName)
        && connectAttributes.equals(r.connectAttributes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        capabilities, user, Arrays.hashCode(authResponse), database, authPluginName);
  }

  @Override
  public String toString() {
    return "HandshakeResponse41[user="
        + user
        + ", plugin="
        + authPluginName
        + ", database="
        + database
        + ", capabilities="
        + CapabilityFlags.names(capabilities)
        + ", authResponse="
        + authResponse.length
        + " bytes, attributes="
        + connectAttributes
        + "]";
  }
}
