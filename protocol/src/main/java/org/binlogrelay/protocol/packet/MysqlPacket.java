package org.binlogrelay.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * One MySQL packet: a sequence id and a payload.
 *
 * <p>On the wire a packet is a 4-byte header (3-byte little-endian payload length, 1-byte sequence
 * id) followed by the payload. A payload of exactly {@link #MAX_FRAME_PAYLOAD} (0xFFFFFF) bytes
 * means the logical payload continues in the next frame, and a logical payload whose length is a
 * multiple of 0xFFFFFF ends with an empty frame. The same class carries both shapes:
 *
 * <ul>
 *   <li>{@link PacketDecoder} emits one {@code MysqlPacket} per physical frame (payload at most
 *       0xFFFFFF);
 *   <li>{@link PacketAggregator} joins continued frames and emits one {@code MysqlPacket} per
 *       logical packet, whose {@link #sequenceId()} is that of its first frame;
 *   <li>{@link PacketEncoder} takes logical packets and writes as many frames as needed.
 * </ul>
 *
 * <p><b>Ownership.</b> The packet owns one reference to its payload ({@link
 * io.netty.util.ReferenceCounted}). Whoever receives a packet from a pipeline must {@link
 * #release()} it (or pass it on, which passes the reference). Immutable apart from the payload's
 * reader index; not thread-safe beyond what the payload buffer offers.
 */
public final class MysqlPacket extends DefaultByteBufHolder {
  /** Largest payload one frame can carry; a frame of exactly this size is continued by the next. */
  public static final int MAX_FRAME_PAYLOAD = 0xFFFFFF;

  /** Bytes in a frame header. */
  public static final int HEADER_SIZE = 4;

  private final int sequenceId;

  /**
   * @param sequenceId 0..255 (first frame's id for a logical packet)
   * @param payload the payload; this packet takes over the caller's reference
   */
  public MysqlPacket(int sequenceId, ByteBuf payload) {
    super(payload);
    if (sequenceId < 0 || sequenceId > 255) {
      throw new IllegalArgumentException("sequence id " + sequenceId + " outside 0..255");
    }
    this.sequenceId = sequenceId;
  }

  /** The sequence id of the (first) frame. */
  public int sequenceId() {
    return sequenceId;
  }

  /** The payload; same as {@link #content()}. */
  public ByteBuf payload() {
    return content();
  }

  /**
   * Number of frames this logical payload occupies on the wire: one per full 0xFFFFFF chunk plus
   * the final shorter (possibly empty) frame.
   */
  public int frameCount() {
    return frameCount(content().readableBytes());
  }

  /** The sequence id of the last frame of this logical packet. */
  public int lastSequenceId() {
    return (sequenceId + frameCount() - 1) & 0xff;
  }

  /** The sequence id a reply to this packet must start with. */
  public int nextSequenceId() {
    return (lastSequenceId() + 1) & 0xff;
  }

  /** Frames needed for a logical payload of {@code payloadLength} bytes. */
  public static int frameCount(int payloadLength) {
    return payloadLength / MAX_FRAME_PAYLOAD + 1;
  }

  @Override
  public MysqlPacket replace(ByteBuf content) {
    return new MysqlPacket(sequenceId, content);
  }

  @Override
  public MysqlPacket copy() {
    return replace(content().copy());
  }

  @Override
  public MysqlPacket duplicate() {
    return replace(content().duplicate());
  }

  @Override
  public MysqlPacket retainedDuplicate() {
    return replace(content().retainedDuplicate());
  }

  @Override
  public MysqlPacket retain() {
    super.retain();
    return this;
  }

  @Override
  public MysqlPacket retain(int increment) {
    super.retain(increment);
    return this;
  }

  @Override
  public MysqlPacket touch() {
    super.touch();
    return this;
  }

  @Override
  public MysqlPacket touch(Object hint) {
    super.touch(hint);
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MysqlPacket other && other.sequenceId == sequenceId && super.equals(o);
  }

  @Override
  public int hashCode() {
    return 31 * super.hashCode() + sequenceId;
  }

  @Override
  public String toString() {
    return "MysqlPacket(seq=" + sequenceId + ", " + content().readableBytes() + " bytes)";
  }
}
