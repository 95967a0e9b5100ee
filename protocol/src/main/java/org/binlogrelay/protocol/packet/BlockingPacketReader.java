package org.binlogrelay.protocol.packet;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.binlogrelay.protocol.ProtocolException;

/**
 * Reads MySQL packets from a blocking {@link InputStream}, the client side of the classic protocol
 * (the Netty side is {@link PacketDecoder} and {@link PacketAggregator}):
 *
 * <pre>
 *   u24 payload length | u8 sequence id | payload
 * </pre>
 *
 * A frame of exactly {@link MysqlPacket#MAX_FRAME_PAYLOAD} bytes continues in the next one (a
 * logical payload whose length is a multiple of it ends with an empty frame); both ways of reading
 * return the joined payload:
 *
 * <ul>
 *   <li>{@link #read()} returns a new array the caller owns; nothing is kept, so a large packet
 *       costs memory only while the caller holds it;
 *   <li>{@link #next()} is for hot loops: a packet that lies whole in the read buffer is returned
 *       in place ({@link #array()}, {@link #offset()}, {@link #length()}), so the common case costs
 *       no copy beyond the kernel's; a packet split into frames is joined into a second buffer.
 *       Both buffers grow on demand and never shrink, and the payload stays valid until the next
 *       read.
 * </ul>
 *
 * The stream is read in chunks of up to the buffer's size, so once a reader is made nobody else may
 * read the stream.
 *
 * <p>Hard limits: a logical payload longer than {@code maxPacket} is refused before anything is
 * allocated for it; sequence ids must count up by one (mod 256) from {@link #expectSequence}. A
 * short read is an {@link EOFException}, a broken rule a {@link ProtocolException}; after either
 * the stream is out of step and the connection must be closed.
 *
 * <p>Not thread-safe: the connection's reading thread only.
 */
public final class BlockingPacketReader {
  private static final int MAX_FRAME = MysqlPacket.MAX_FRAME_PAYLOAD;
  private static final int HEADER = MysqlPacket.HEADER_SIZE;

  private final InputStream in;
  private final int maxPacket;
  private final String peer;
  private final String limitHint;
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
   * @param in the stream, unbuffered (this class buffers)
   * @param bufferSize the initial read buffer, at least 64; a larger one means fewer system calls
   * @param maxPacket the largest logical payload accepted, positive
   * @param peer who sends, for messages: "the primary", "the source"
   * @param limitHint appended to the message of a packet over the limit, e.g. what to raise; may be
   *     empty
   */
  public BlockingPacketReader(
      InputStream in, int bufferSize, int maxPacket, String peer, String limitHint) {
    if (bufferSize < 64 || maxPacket < 1) {
      throw new IllegalArgumentException(
          "bufferSize must be at least 64 and maxPacket positive, got "
              + bufferSize
              + " and "
              + maxPacket);
    }
    this.in = in;
    this.buf = new byte[bufferSize];
    this.maxPacket = maxPacket;
    this.peer = peer;
    this.limitHint = limitHint;
  }

  /** The sequence id the next frame must carry; 1 after the client sent a command (which had 0). */
  public void expectSequence(int sequence) {
    nextSequence = sequence & 0xff;
  }

  /** The sequence id the next frame must carry. */
  public int expectedSequence() {
    return nextSequence;
  }

  /**
   * Hands over the bytes read from the stream but not yet returned in a packet, and forgets them:
   * for a caller that goes on reading the connection another way (a non-blocking channel), which
   * must start with these. Not counted in {@link #bytesRead()}; the reader must not be used
   * afterwards.
   */
  public byte[] takeBuffered() {
    byte[] rest = Arrays.copyOfRange(buf, start, end);
    start = end;
    return rest;
  }

  /** The sequence id of the last frame read; a client's reply carries this plus one. */
  public int lastSequence() {
    return lastSequence;
  }

  /**
   * How many reads of the stream returned bytes so far. Packets read between two changes of this
   * count arrived together, so a consumer that needs their arrival time reads the clock once per
   * change instead of once per packet.
   */
  public long reads() {
    return reads;
  }

  /** Bytes taken from the stream so far, frame headers included. */
  public long bytesRead() {
    return bytesRead;
  }

  /** Reads the next logical packet into a new array the caller owns. */
  public byte[] read() throws IOException {
    List<byte[]> frames = null;
    long total = 0;
    while (true) {
      int frame = frameHeader();
      if (total + frame > maxPacket) {
        throw tooLong(total + frame);
      }
      byte[] bytes = new byte[frame];
      copyTo(bytes, 0, frame);
      total += frame;
      if (frames == null && frame < MAX_FRAME) {
        return bytes;
      }
      if (frames == null) {
        frames = new ArrayList<>();
      }
      frames.add(bytes);
      if (frame < MAX_FRAME) {
        byte[] out = new byte[(int) total];
        int at = 0;
        for (byte[] f : frames) {
          System.arraycopy(f, 0, out, at, f.length);
          at += f.length;
        }
        return out;
      }
    }
  }

  /**
   * Reads the next logical packet into the reader's buffers.
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
        joined =
            Arrays.copyOf(
                joined, (int) Math.min(maxPacket, Math.max(total + frame, 2L * joined.length)));
      }
      copyTo(joined, (int) total, frame);
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

  /** The array holding the payload {@link #next()} read (shared, reused). */
  public byte[] array() {
    return payload;
  }

  /** Where that payload starts in {@link #array()}. */
  public int offset() {
    return offset;
  }

  /** That payload's length. */
  public int length() {
    return length;
  }

  /** A copy of the payload {@link #next()} read. */
  public byte[] copy() {
    return Arrays.copyOfRange(payload, offset, offset + length);
  }

  private int frameHeader() throws IOException {
    fill(HEADER);
    int frame = (buf[start] & 0xff) | (buf[start + 1] & 0xff) << 8 | (buf[start + 2] & 0xff) << 16;
    int sequence = buf[start + 3] & 0xff;
    if (sequence != nextSequence) {
      throw new ProtocolException(
          "packet with sequence id "
              + sequence
              + " where "
              + nextSequence
              + " was due: the stream is out of step");
    }
    if (frame > maxPacket) {
      throw tooLong(frame);
    }
    lastSequence = sequence;
    nextSequence = (sequence + 1) & 0xff;
    consume(HEADER);
    return frame;
  }

  private ProtocolException tooLong(long n) {
    return new ProtocolException(
        "packet of "
            + n
            + "+ bytes is over the limit of "
            + maxPacket
            + " bytes"
            + (limitHint.isEmpty() ? "" : " " + limitHint));
  }

  /**
   * Copies the next {@code n} bytes of the stream to {@code dst}, through the buffer without
   * growing it.
   */
  private void copyTo(byte[] dst, int at, int n) throws IOException {
    int copied = 0;
    while (copied < n) {
      if (end == start) {
        start = 0;
        end = 0;
        int r = in.read(buf, 0, buf.length);
        if (r < 0) {
          throw closed(copied, n);
        }
        end = r;
        reads++;
      }
      int c = Math.min(n - copied, end - start);
      System.arraycopy(buf, start, dst, at + copied, c);
      copied += c;
      consume(c);
    }
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
        throw closed(end - start, n);
      }
      end += r;
      reads++;
    }
  }

  private EOFException closed(int have, int n) {
    return new EOFException(
        peer + " closed the connection after " + have + " of " + n + " bytes of a packet");
  }
}
