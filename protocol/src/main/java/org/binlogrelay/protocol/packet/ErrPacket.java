package org.binlogrelay.protocol.packet;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * The ERR packet payload, CLIENT_PROTOCOL_41 form:
 *
 * <pre>
 *   u8    0xFF
 *   u16   error code
 *   u8    '#'            sql state marker
 *   5     sql state      e.g. "HY000"
 *   rest  message        human readable, no terminator
 * </pre>
 *
 * Decoding also accepts the pre-4.1 form without the marker and state (sent before the handshake
 * settles the capabilities); the state is then reported as {@code HY000}. Immutable.
 *
 * @param code the MySQL error number, 0..65535 (e.g. 1236 for a purged binlog)
 * @param sqlState five ASCII characters
 * @param message the text
 */
public record ErrPacket(int code, String sqlState, String message) {
  public static final int HEADER = 0xff;

  /** The SQL state reported when the packet carries none. */
  public static final String GENERAL_SQL_STATE = "HY000";

  public ErrPacket {
    if (code < 0 || code > 0xffff) {
      throw new IllegalArgumentException("error code " + code + " outside 0..65535");
    }
    if (sqlState.length() != 5 || !StandardCharsets.US_ASCII.newEncoder().canEncode(sqlState)) {
      throw new IllegalArgumentException("sql state '" + sqlState + "' is not 5 ASCII characters");
    }
  }

  /** True if {@code payload} starts with the ERR header. */
  public static boolean isErr(byte[] payload) {
    return payload.length > 0 && (payload[0] & 0xff) == HEADER;
  }

  public byte[] encode() {
    return new ByteWriter(9 + message.length())
        .u8(HEADER)
        .u16(code)
        .u8('#')
        .string(sqlState)
        .string(message)
        .toByteArray();
  }

  /** Decodes an ERR payload; {@link ProtocolException} if it is not one or is cut short. */
  public static ErrPacket decode(byte[] payload) {
    ByteReader in = new ByteReader(payload);
    int header = in.u8("ERR header");
    if (header != HEADER) {
      throw new ProtocolException(
          "ERR packet: header 0x" + Integer.toHexString(header) + ", expected 0xff");
    }
    int code = in.u16("ERR error code");
    String state = GENERAL_SQL_STATE;
    if (in.hasRemaining() && payload[in.arrayOffset()] == '#') {
      in.skip(1, "ERR sql state marker");
      int at = in.position();
      byte[] raw = in.bytes(5, "ERR sql state");
      for (byte b : raw) {
        if (b < 0) {
          throw new ProtocolException(
              "ERR packet: sql state at offset " + at + " is not 5 ASCII characters");
        }
      }
      state = new String(raw, StandardCharsets.US_ASCII);
    }
    return new ErrPacket(code, state, in.string(in.remaining(), "ERR message"));
  }
}
