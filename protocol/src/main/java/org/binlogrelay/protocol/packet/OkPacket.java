package org.binlogrelay.protocol.packet;

import java.util.Objects;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * The OK packet payload, CLIENT_PROTOCOL_41 form:
 *
 * <pre>
 *   u8      0x00 (or 0xFE when it replaces EOF under CLIENT_DEPRECATE_EOF)
 *   lenenc  affected rows
 *   lenenc  last insert id
 *   u16     status flags       SERVER_STATUS_*
 *   u16     warnings
 *   lenenc  info               only when not empty (MySQL's and MariaDB's net_send_ok store it length-encoded,
 *                              with or without CLIENT_SESSION_TRACK)
 *   rest    session state      only under CLIENT_SESSION_TRACK; not modelled: skipped when decoding
 * </pre>
 *
 * <p>The info is human readable text after a statement ("Rows matched: 1 ..."); after a login over
 * TLS MariaDB 11.4+ puts its certificate proof there ({@link
 * org.binlogrelay.protocol.auth.CertificateProof}). Immutable.
 *
 * @param affectedRows rows changed (unsigned 64-bit, kept raw)
 * @param lastInsertId last auto-increment value (unsigned 64-bit, kept raw)
 * @param statusFlags server status bits
 * @param warnings warning count
 * @param info the info text, often empty
 */
public record OkPacket(
    long affectedRows, long lastInsertId, int statusFlags, int warnings, String info) {
  public static final int HEADER = 0x00;

  /** Header of an OK that stands in for EOF (CLIENT_DEPRECATE_EOF). */
  public static final int EOF_HEADER = 0xfe;

  public static final int SERVER_STATUS_IN_TRANS = 0x0001;
  public static final int SERVER_STATUS_AUTOCOMMIT = 0x0002;
  public static final int SERVER_MORE_RESULTS_EXISTS = 0x0008;
  public static final int SERVER_STATUS_NO_GOOD_INDEX_USED = 0x0010;
  public static final int SERVER_STATUS_NO_INDEX_USED = 0x0020;
  public static final int SERVER_STATUS_CURSOR_EXISTS = 0x0040;
  public static final int SERVER_STATUS_LAST_ROW_SENT = 0x0080;
  public static final int SERVER_STATUS_DB_DROPPED = 0x0100;
  public static final int SERVER_STATUS_NO_BACKSLASH_ESCAPES = 0x0200;
  public static final int SERVER_STATUS_METADATA_CHANGED = 0x0400;
  public static final int SERVER_QUERY_WAS_SLOW = 0x0800;
  public static final int SERVER_PS_OUT_PARAMS = 0x1000;
  public static final int SERVER_STATUS_IN_TRANS_READONLY = 0x2000;
  public static final int SERVER_SESSION_STATE_CHANGED = 0x4000;

  public OkPacket {
    Objects.requireNonNull(info, "info");
    if (statusFlags < 0 || statusFlags > 0xffff || warnings < 0 || warnings > 0xffff) {
      throw new IllegalArgumentException(
          "status " + statusFlags + " / warnings " + warnings + " outside u16");
    }
  }

  /** An OK with autocommit status and nothing else, what a simple command gets back. */
  public static OkPacket ok() {
    return new OkPacket(0, 0, SERVER_STATUS_AUTOCOMMIT, 0, "");
  }

  /** True if {@code payload} is an OK packet (header 0x00 and at least the 7 fixed bytes). */
  public static boolean isOk(byte[] payload) {
    return payload.length >= 7 && (payload[0] & 0xff) == HEADER;
  }

  public byte[] encode() {
    return encode(HEADER);
  }

  /** Encodes with {@code header} 0x00 (OK) or 0xFE (OK in place of EOF). */
  public byte[] encode(int header) {
    if (header != HEADER && header != EOF_HEADER) {
      throw new IllegalArgumentException(
          "OK header must be 0x00 or 0xfe, not 0x" + Integer.toHexString(header));
    }
    ByteWriter out =
        new ByteWriter(32 + info.length())
            .u8(header)
            .lenencInt(affectedRows)
            .lenencInt(lastInsertId)
            .u16(statusFlags)
            .u16(warnings);
    if (!info.isEmpty()) {
      out.lenencString(info);
    }
    return out.toByteArray();
  }

  /**
   * Decodes an OK payload (header 0x00 or 0xFE); {@link ProtocolException} if malformed, including
   * an info whose length runs past the end. Session state after the info is skipped.
   */
  public static OkPacket decode(byte[] payload) {
    ByteReader in = new ByteReader(payload);
    int header = in.u8("OK header");
    if (header != HEADER && header != EOF_HEADER) {
      throw new ProtocolException(
          "OK packet: header 0x" + Integer.toHexString(header) + ", expected 0x00 or 0xfe");
    }
    long affected = in.lenencInt("OK affected rows");
    long lastId = in.lenencInt("OK last insert id");
    int status = in.u16("OK status flags");
    int warnings = in.u16("OK warnings");
    String info = in.remaining() == 0 ? "" : in.lenencString("OK info");
    return new OkPacket(affected, lastId, status, warnings, info);
  }
}
