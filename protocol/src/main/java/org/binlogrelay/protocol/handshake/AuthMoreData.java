package org.binlogrelay.protocol.handshake;

import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;

/**
 * Protocol::AuthMoreData: {@code u8 0x01} followed by data of the current auth plugin, e.g.
 * caching_sha2_password's one-byte 0x03 (fast auth succeeded) or 0x04 (perform full
 * authentication), or the server's RSA public key in PEM. The 0x01 prefix keeps it apart from OK
 * (0x00), ERR (0xFF) and auth switch (0xFE). Immutable.
 */
public record AuthMoreData(byte[] data) {
  public static final int HEADER = 0x01;

  public AuthMoreData {
    data = data.clone();
  }

  @Override
  public byte[] data() {
    return data.clone();
  }

  public static AuthMoreData of(int singleByte) {
    return new AuthMoreData(new byte[] {(byte) singleByte});
  }

  public byte[] encode() {
    byte[] out = new byte[data.length + 1];
    out[0] = HEADER;
    System.arraycopy(data, 0, out, 1, data.length);
    return out;
  }

  public static boolean isAuthMoreData(byte[] payload) {
    return payload.length > 0 && payload[0] == HEADER;
  }

  public static AuthMoreData decode(byte[] payload) {
    if (!isAuthMoreData(payload)) {
      throw new ProtocolException(
          "auth more data: expected header 0x01, got " + payload.length + " bytes");
    }
    return new AuthMoreData(Arrays.copyOfRange(payload, 1, payload.length));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AuthMoreData m && Arrays.equals(data, m.data);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    return "AuthMoreData[" + data.length + " bytes]";
  }
}
