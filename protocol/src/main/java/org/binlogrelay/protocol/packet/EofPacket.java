package org.binlogrelay.protocol.packet;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * The EOF packet payload, CLIENT_PROTOCOL_41 form: {@code u8 0xFE, u16 warnings, u16 status flags}.
 * A payload starting with 0xFE is an EOF only when shorter than 9 bytes (longer ones are
 * length-encoded integers or OK-as-EOF). Immutable.
 *
 * @param warnings warning count
 * @param statusFlags server status bits (see {@link OkPacket})
 */
public record EofPacket(int warnings, int statusFlags) {
  public static final int HEADER = 0xfe;

  public EofPacket {
    if (statusFlags < 0 || statusFlags > 0xffff || warnings < 0 || warnings > 0xffff) {
      throw new IllegalArgumentException(
          "status " + statusFlags + " / warnings " + warnings + " outside u16");
    }
  }

  public static boolean isEof(byte[] payload) {
    return payload.length > 0 && payload.length < 9 && (payload[0] & 0xff) == HEADER;
  }

  public byte[] encode() {
    return new ByteWriter(5).u8(HEADER).u16(warnings).u16(statusFlags).toByteArray();
  }

  public static EofPacket decode(byte[] payload) {
    if (!isEof(payload)) {
      throw new ProtocolException(
          "EOF packet: expected 0xfe and under 9 bytes, got " + payload.length + " bytes");
    }
    ByteReader in = new ByteReader(payload);
    in.skip(1, "EOF header");
    return new EofPacket(in.u16("EOF warnings"), in.u16("EOF status flags"));
  }
}
