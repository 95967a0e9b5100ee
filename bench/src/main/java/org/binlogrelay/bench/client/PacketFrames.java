package org.binlogrelay.bench.client;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.packet.MysqlPacket;

/**
 * The packets of a connection read without blocking: {@link #readFrom} takes what the channel has,
 * {@link #next()} returns each packet that is whole by then, the rest waits for the next read. The
 * same framing and rules as {@link org.binlogrelay.protocol.packet.BlockingPacketReader} (which a
 * connection hands over to this one after its dump command): a frame of 0xFFFFFF bytes continues in
 * the next, sequence ids count up by one, a payload over {@code maxPacket} is refused before it is
 * buffered.
 *
 * <p>A packet in one frame is returned in place in the read buffer ({@link #array()}, {@link
 * #offset()}, {@link #length()}, valid until the next call); a packet of several frames is joined
 * into a second buffer. Both grow on demand and never shrink.
 *
 * <p>Not thread-safe: one reading thread.
 */
public final class PacketFrames {
  private static final int MAX_FRAME = MysqlPacket.MAX_FRAME_PAYLOAD;
  private static final int HEADER = MysqlPacket.HEADER_SIZE;

  private final int maxPacket;
  private byte[] buf;
  private int start;
  private int end;
  private int nextSequence;

  /** The frames of a packet of several frames so far, while one is being joined. */
  private byte[] joined = new byte[0];

  private long joinedLength = -1;

  private byte[] payload;
  private int offset;
  private int length;
  private long bytesRead;

  /**
   * @param initial bytes already read from the connection, not yet returned in a packet
   * @param bufferSize the read buffer, at least 64
   * @param maxPacket the largest payload accepted
   * @param nextSequence the sequence id the next frame carries
   */
  public PacketFrames(byte[] initial, int bufferSize, int maxPacket, int nextSequence) {
    if (bufferSize < 64 || maxPacket < 1) {
      throw new IllegalArgumentException(
          "bufferSize must be at least 64 and maxPacket positive, got "
              + bufferSize
              + " and "
              + maxPacket);
    }
    this.buf = new byte[Math.max(bufferSize, initial.length)];
    System.arraycopy(initial, 0, buf, 0, initial.length);
    this.end = initial.length;
    this.maxPacket = maxPacket;
    this.nextSequence = nextSequence & 0xff;
  }

  /**
   * Reads what {@code channel} (non-blocking) has, up to the buffer's free room; makes room for the
   * whole of the frame under way first.
   *
   * @return the bytes read, 0 if none were waiting, -1 at the end of the stream
   */
  public int readFrom(ReadableByteChannel channel) throws IOException {
    int need = HEADER;
    if (end - start >= HEADER) {
      need += frameLength();
    }
    if (buf.length - start < need || start == end) {
      if (buf.length < need) {
        buf = Arrays.copyOfRange(buf, start, start + Math.max(need, 2 * buf.length));
      } else {
        System.arraycopy(buf, start, buf, 0, end - start);
      }
      end -= start;
      start = 0;
    } else if (buf.length - end < (buf.length >> 3)) {
      System.arraycopy(buf, start, buf, 0, end - start);
      end -= start;
      start = 0;
    }
    int r = channel.read(ByteBuffer.wrap(buf, end, buf.length - end));
    if (r > 0) {
      end += r;
    }
    return r;
  }

  /**
   * The next whole packet, if the bytes read so far hold one.
   *
   * @return true if there is one: its payload is {@code array()[offset() .. offset() + length())}
   */
  public boolean next() {
    while (end - start >= HEADER) {
      int frame = frameLength();
      if (end - start < HEADER + frame) {
        return false;
      }
      int sequence = buf[start + 3] & 0xff;
      if (sequence != nextSequence) {
        throw new ProtocolException(
            "packet with sequence id "
                + sequence
                + " where "
                + nextSequence
                + " was due: the stream is out of step");
      }
      nextSequence = (sequence + 1) & 0xff;
      int at = start + HEADER;
      consume(HEADER + frame);
      if (joinedLength < 0 && frame < MAX_FRAME) {
        payload = buf;
        offset = at;
        length = frame;
        return true;
      }
      long total = Math.max(0, joinedLength) + frame;
      if (total > maxPacket) {
        throw tooLong(total);
      }
      if (joined.length < total) {
        joined =
            Arrays.copyOf(joined, (int) Math.min(maxPacket, Math.max(total, 2L * joined.length)));
      }
      System.arraycopy(buf, at, joined, (int) (total - frame), frame);
      joinedLength = total;
      if (frame < MAX_FRAME) {
        payload = joined;
        offset = 0;
        length = (int) total;
        joinedLength = -1;
        return true;
      }
    }
    return false;
  }

  /** The array holding the payload {@link #next()} returned (shared, reused). */
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

  /** Bytes returned in packets so far, frame headers included. */
  public long bytesRead() {
    return bytesRead;
  }

  /** The length of the frame at {@code start}, checked against the limit; needs its header. */
  private int frameLength() {
    int frame = (buf[start] & 0xff) | (buf[start + 1] & 0xff) << 8 | (buf[start + 2] & 0xff) << 16;
    if (frame > maxPacket) {
      throw tooLong(frame);
    }
    return frame;
  }

  private void consume(int n) {
    start += n;
    bytesRead += n;
  }

  private ProtocolException tooLong(long n) {
    return new ProtocolException(
        "packet of "
            + n
            + "+ bytes is over the limit of "
            + maxPacket
            + " bytes (raise --max-packet if the source's events are that large)");
  }
}
