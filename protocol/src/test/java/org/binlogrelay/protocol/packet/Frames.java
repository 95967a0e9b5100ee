package org.binlogrelay.protocol.packet;

import java.io.ByteArrayOutputStream;

/**
 * Test side: raw MySQL frames (public: server tests feed {@link BlockingPacketReader}s with them).
 */
public final class Frames {
  private Frames() {}

  /** One physical frame: u24 LE length, sequence id, payload. */
  static byte[] frame(int seq, byte[] payload) {
    return frame(seq, payload, 0, payload.length);
  }

  static byte[] frame(int seq, byte[] payload, int from, int length) {
    byte[] out = new byte[4 + length];
    out[0] = (byte) length;
    out[1] = (byte) (length >>> 8);
    out[2] = (byte) (length >>> 16);
    out[3] = (byte) seq;
    System.arraycopy(payload, from, out, 4, length);
    return out;
  }

  /** The frames MySQL writes for a logical payload starting at {@code seq}. */
  static byte[] logical(int seq, byte[] payload) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length + 16);
    int at = 0;
    while (true) {
      int n = Math.min(payload.length - at, MysqlPacket.MAX_FRAME_PAYLOAD);
      out.writeBytes(frame(seq, payload, at, n));
      seq = (seq + 1) & 0xff;
      at += n;
      if (n < MysqlPacket.MAX_FRAME_PAYLOAD) {
        return out.toByteArray();
      }
    }
  }

  /**
   * Several logical payloads framed one after the other as a server writes them, sequence ids
   * counting up from {@code firstSequence}: each split at 0xFFFFFF, with the empty trailer if due.
   */
  public static byte[] packets(int firstSequence, byte[]... payloads) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int seq = firstSequence;
    for (byte[] payload : payloads) {
      byte[] framed = logical(seq, payload);
      out.writeBytes(framed);
      seq = (seq + MysqlPacket.frameCount(payload.length)) & 0xff;
    }
    return out.toByteArray();
  }
}
