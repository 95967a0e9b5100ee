package org.binlogrelay.protocol.handshake;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * Protocol::SSLRequest: the first 32 bytes of a {@link HandshakeResponse41} sent alone, with {@link
 * CapabilityFlags#CLIENT_SSL} set, asking the server to start TLS before the real response:
 *
 * <pre>
 *   u32  capability flags   CLIENT_SSL set
 *   u32  max packet size
 *   u8   character set
 *   23   filler, zero
 * </pre>
 *
 * A real handshake response is always longer (it carries at least a user name's NUL), so the length
 * alone tells the two apart. Immutable.
 */
public record SslRequest(int capabilities, long maxPacketSize, int characterSet) {
  public static final int LENGTH = 32;

  /** True if {@code payload} is an SSL request: exactly 32 bytes with CLIENT_SSL set. */
  public static boolean matches(byte[] payload) {
    return payload.length == LENGTH && (payload[1] & (CapabilityFlags.CLIENT_SSL >>> 8)) != 0;
  }

  public static SslRequest decode(byte[] payload) {
    if (!matches(payload)) {
      throw new ProtocolException(
          "SSL request: expected 32 bytes with CLIENT_SSL, got " + payload.length + " bytes");
    }
    ByteReader in = new ByteReader(payload);
    return new SslRequest(
        (int) in.u32("SSL request capabilities"),
        in.u32("SSL request max packet size"),
        in.u8("SSL request character set"));
  }

  public byte[] encode() {
    return new ByteWriter(LENGTH)
        .u32(capabilities | CapabilityFlags.CLIENT_SSL)
        .u32(maxPacketSize)
        .u8(characterSet)
        .bytes(new byte[23])
        .toByteArray();
  }
}
