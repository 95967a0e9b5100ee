package org.binlogrelay.protocol.handshake;

import java.util.Arrays;
import java.util.Objects;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * Protocol::AuthSwitchRequest, the server asking the client to authenticate with another plugin:
 * {@code u8 0xFE, NUL str plugin name, rest plugin data} (for both password plugins: the 20-byte
 * scramble and a NUL). The client answers with the raw response of that plugin. Immutable.
 */
public record AuthSwitchRequest(String pluginName, byte[] pluginData) {
  public static final int HEADER = 0xfe;

  public AuthSwitchRequest {
    Objects.requireNonNull(pluginName, "pluginName");
    pluginData = pluginData.clone();
  }

  @Override
  public byte[] pluginData() {
    return pluginData.clone();
  }

  public byte[] encode() {
    return new ByteWriter(2 + pluginName.length() + pluginData.length)
        .u8(HEADER)
        .nulString(pluginName)
        .bytes(pluginData)
        .toByteArray();
  }

  /**
   * True for a payload starting with 0xFE that is not an EOF (an EOF is shorter than 9 bytes and
   * has no name).
   */
  public static boolean isAuthSwitch(byte[] payload) {
    return payload.length > 1 && (payload[0] & 0xff) == HEADER;
  }

  public static AuthSwitchRequest decode(byte[] payload) {
    ByteReader in = new ByteReader(payload);
    int header = in.u8("auth switch header");
    if (header != HEADER) {
      throw new ProtocolException(
          "auth switch request: header 0x" + Integer.toHexString(header) + ", expected 0xfe");
    }
    return new AuthSwitchRequest(in.nulString("auth switch plugin name"), in.rest());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AuthSwitchRequest r
        && pluginName.equals(r.pluginName)
        && Arrays.equals(pluginData, r.pluginData);
  }

  @Override
  public int hashCode() {
    return pluginName.hashCode() * 31 + Arrays.hashCode(pluginData);
  }

  @Override
  public String toString() {
    return "AuthSwitchRequest[" + pluginName + ", " + pluginData.length + " bytes]";
  }
}
