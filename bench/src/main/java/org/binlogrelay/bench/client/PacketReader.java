package org.binlogrelay.bench.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;

/**
 * Reads MySQL packets from a blocking stream into buffers it reuses, the client side of the classic protocol:
 *
 * <pre>
 *   u24 payload length | u8 sequence id | payload
 * </pre>
 *
 * A frame of exactly {@code 0xFFFFFF} bytes continues in the next one (a logical payload whose length is a
 * multiple of {@code 0xFFFFFF} ends with an empty frame); {@link #next()} returns the joined payload.
 *
 * <p>Speed: the stream is read in large chunks into one read buffer; a packet that lies whole in it is returned
 * in place ({@link #array()}, {@link #offset()}), so the common case costs no copy beyond the kernel's. Only a
 * packet split into frames is copied, into a second reused buffer. Both buffers grow on demand and never shrink.
 *
 * <p>Hard limits: a logical payload longer than {@code maxPacket} is refused before anything is allocated for it;
 * sequence ids must count up by one (mod 256) from {@link #expectSequence}. A short read is an {@link
 * EOFException}, a broken rule a {@link ProtocolException}; after either the connection must be closed.
 *
 * <p>Not thread-safe: the connection's reading thread only. A payload stays valid until the next {@link #next()}.
 */
public final class PacketReader {
  /** Largest payload of one frame; a frame this long continues in the next. */
  public static final int MAX_FRAME = 0xFFFFFF;
  private static final int HEADER = 4;

  private final InputStream in;
  private final int maxPacket;
  private byte[] buf;
  private int start;
  private int end;
  private byte[] joined = new byte[0];
  private byte[] payload;
  private int offset;
  private int length;
  private int nextSequence;
  private int lastSequence;
  private long bytesRead;
  private long reads;

  /**
   * @param in the connection's input, unbuffered (this class buffers)
   * @param bufferSize the initial read buffer; a larger one means fewer system calls
   * @param maxPacket the largest logical payload accepted
   */
  public PacketReader(InputStream in, int bufferSize, int maxPacket) {
    if (bufferSize < 64 || maxPacket < 1) {
      throw new IllegalArgumentException("bufferSize must be at least 64 and maxPacket positive, got " + bufferSize
          + " and " + maxPacket);
    }
    this.in = in;
    this.buf = new byte[bufferSize];
    this.maxPacket = maxPacket;
  }

  /** The sequence id the next frame must carry. */
  public void expectSequence(int sequence) {
    nextSequence = sequence & 0xff;
  }

  /** The sequence id of the last frame read; a client's reply carries this plus one. */
  public int lastSequence() {
    return lastSequence;
  }

  /**
   * How many reads of the stream returned bytes so far. Packets read between two changes of this count arrived
   * together, so a consumer that needs their arrival time reads the clock once per change instead of once per
   * packet (a clock read costs as much as parsing a small event).
   */
  public long reads() {
    return reads;
  }

  /** Bytes taken from the stream so far, frame headers included. */
  public long bytesRead() {
    return bytesRead;
  }

  /**
   * Reads the next logical packet.
   *
   * @return its payload length; the bytes are {@code array()[offset() .. offset() + length)}
   */
  public int next() throws IOException {
    int frame = frameHeader();
    if (frame < MAX_FRAME) {
      fill(frame);
      payload = buf;
      offset = start;
      length = frame;
      consume(frame);
      return frame;
    }
    long total = 0;
    while (true) {
      if (total + frame > maxPacket) {
        throw tooLong(total + frame);
      }
      if (joined.length < total + frame) {
        joined = Arrays.copyOf(joined, (int) Math.min(maxPacket, Math.max(total + frame, 2L * joined.length)));
      }
      int copied = 0;
      while (copied < frame) {
        if (end == start) {
          fill(1);
        }
        int n = Math.min(frame - copied, end - start);
        System.arraycopy(buf, start, joined, (int) total + copied, n);
        copied += n;
        consume(n);
      }
      total += frame;
      if (frame < MAX_FRAME) {
        break;
      }
      frame = frameHeader();
    }
    payload = joined;
    offset = 0;
    length = (int) total;
    return length;
  }

  /** The array holding the last payload (shared, reused). */
  public byte[] array() {
    return payload;
  }

  /** Where the last payload starts in {@link #array()}. */
  public int offset() {
    return offset;
  }

  /** The last payload's length. */
  public int length() {
    return length;
  }

  /** A copy of the last payload. */
  public byte[] copy() {
    return Arrays.copyOfRange(payload, offset, offset + length);
  }

  private int frameHeader() throws IOException {
    fill(HEADER);
    int length = (buf[start] & 0xff) | (buf[start + 1] & 0xff) << 8 | (buf[start + 2] & 0xff) << 16;
    int sequence = buf[start + 3] & 0xff;
    if (sequence != nextSequence) {
      throw new ProtocolException("packet with sequence id " + sequence + " where " + nextSequence
          + " was due: the stream is out of step");
    }
    if (length > maxPacket) {
      throw tooLong(length);
    }
    lastSequence = sequence;
    nextSequence = (sequence + 1) & 0xff;
    consume(HEADER);
    return length;
  }

  private ProtocolException tooLong(long n) {
    return new ProtocolException("packet of " + n + "+ bytes is over the limit of " + maxPacket
        + " bytes (raise --max-packet if the source's events are that large)");
  }

  private void consume(int n) {
    start += n;
    bytesRead += n;
  }

  /** Makes at least {@code n} unread bytes available at {@code start}. */
  private void fill(int n) throws IOException {
    if (end - start >= n) {
      return;
    }
    if (buf.length - start < n) {
      if (buf.length < n) {
        buf = Arrays.copyOfRange(buf, start, start + Math.max(n, 2 * buf.length));
      } else {
        System.arraycopy(buf, start, buf, 0, end - start);
      }
      end -= start;
      start = 0;
    }
    while (end - start < n) {
      int r = in.read(buf, end, buf.length - end);
      if (r < 0) {
        throw new EOFException("the source closed the connection with " + (end - start) + " of " + n
            + " bytes of a packet read");
      }
      end += r;
      reads++;
    }
  }
}
