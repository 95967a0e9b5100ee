package org.binlogrelay.server.upstream;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.ProtocolException;

/**
 * Reads MySQL packets from a blocking stream, the client side of the classic protocol after authentication:
 *
 * <pre>
 *   u24 payload length | u8 sequence id | payload
 * </pre>
 *
 * A payload of exactly {@code 0xFFFFFF} bytes continues in the next frame (and a logical payload whose length
 * is a multiple of {@code 0xFFFFFF} ends with an empty frame); {@link #read()} returns the joined payload.
 *
 * <p>Hard limits: a length is checked against {@code maxPayload} before anything is allocated, and sequence
 * ids must count up by one (mod 256) from the one {@link #expectSequence} set (1 after each command the
 * client sends). A short read is an {@link EOFException}; a broken rule a {@link ProtocolException}. After
 * either, the stream is out of step and the connection must be closed.
 *
 * <p>Not thread-safe: the connection's reading thread only.
 */
final class PacketReader {
  /** Largest payload of one frame; a frame this long continues in the next. */
  static final int MAX_FRAME = 0xFFFFFF;

  private final InputStream in;
  private final int maxPayload;
  private final byte[] header = new byte[4];
  private int nextSequence;

  /**
   * @param in the connection's input (buffered by the caller)
   * @param maxPayload largest joined payload accepted, e.g. the largest event plus its 0x00 marker
   */
  PacketReader(InputStream in, int maxPayload) {
    if (maxPayload < 1) {
      throw new IllegalArgumentException("maxPayload must be positive, got " + maxPayload);
    }
    this.in = in;
    this.maxPayload = maxPayload;
  }

  /** The sequence id the next frame must carry; 1 after the client sent a command (which had 0). */
  void expectSequence(int sequence) {
    this.nextSequence = sequence & 0xff;
  }

  /** Reads one logical packet and returns its payload. */
  byte[] read() throws IOException {
    List<byte[]> frames = null;
    long total = 0;
    while (true) {
      readFully(header, 0, 4, "packet header");
      int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
      int sequence = header[3] & 0xff;
      if (sequence != nextSequence) {
        throw new ProtocolException("packet with sequence id " + sequence + " where " + nextSequence
            + " was due: the stream is out of step");
      }
      nextSequence = (nextSequence + 1) & 0xff;
      if (total + length > maxPayload) {
        throw new ProtocolException("packet of " + (total + length) + "+ bytes is over the limit of " + maxPayload
            + " bytes (the largest event accepted; see the store's maxEventSize)");
      }
      byte[] frame = new byte[length];
      readFully(frame, 0, length, "packet payload of " + length + " bytes");
      total += length;
      if (frames == null && length < MAX_FRAME) {
        return frame;
      }
      if (frames == null) {
        frames = new ArrayList<>();
      }
      frames.add(frame);
      if (length < MAX_FRAME) {
        return join(frames, (int) total);
      }
    }
  }

  private static byte[] join(List<byte[]> frames, int total) {
    byte[] out = new byte[total];
    int at = 0;
    for (byte[] f : frames) {
      System.arraycopy(f, 0, out, at, f.length);
      at += f.length;
    }
    return out;
  }

  private void readFully(byte[] buf, int offset, int length, String what) throws IOException {
    int done = 0;
    while (done < length) {
      int n = in.read(buf, offset + done, length - done);
      if (n < 0) {
        throw new EOFException("the primary closed the connection after " + done + " of the " + length
            + " bytes of a " + what);
      }
      done += n;
    }
  }
}
