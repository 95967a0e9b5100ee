package org.binlogrelay.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Splits a byte stream into MySQL frames: {@code [u24 LE payload length][u8 sequence id][payload]},
 * emitting one {@link MysqlPacket} per physical frame (payload at most 0xFFFFFF bytes). Joining
 * continued frames into logical packets is {@link PacketAggregator}'s job.
 *
 * <p>A small state machine: {@link State#HEADER} waits for 4 header bytes and checks the length
 * against the limit before anything is allocated; {@link State#PAYLOAD} waits until the whole
 * payload has arrived and emits a retained slice of it (no copy). After a {@link
 * TooLongFrameException} the stream position is lost, so the decoder moves to {@link State#FAILED}
 * and discards everything that follows; the caller is expected to close the connection.
 *
 * <p>The limit: a frame of exactly 0xFFFFFF bytes is always a continuation, so a frame is refused
 * when its length exceeds {@code maxPayloadBytes}, or when it is a continuation frame and {@code
 * maxPayloadBytes} is below 0xFFFFFF (the logical payload is then certainly longer than the limit).
 * Aggregated sizes are checked by {@link PacketAggregator}.
 *
 * <p>One instance per channel (not {@code @Sharable}); runs on the channel's event loop.
 */
public final class PacketDecoder extends ByteToMessageDecoder {

  /** Where the decoder is in the current frame. */
  enum State {
    HEADER,
    PAYLOAD,
    FAILED
  }

  private final int maxPayloadBytes;
  private State state = State.HEADER;
  private int payloadLength;
  private int sequenceId;

  /**
   * @param maxPayloadBytes largest logical payload accepted; at least 0
   */
  public PacketDecoder(int maxPayloadBytes) {
    if (maxPayloadBytes < 0) {
      throw new IllegalArgumentException("maxPayloadBytes " + maxPayloadBytes + " is negative");
    }
    this.maxPayloadBytes = maxPayloadBytes;
  }

  State state() {
    return state;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (true) {
      switch (state) {
        case HEADER:
          if (in.readableBytes() < MysqlPacket.HEADER_SIZE) {
            return;
          }
          int length = in.readUnsignedMediumLE();
          int seq = in.readUnsignedByte();
          checkLength(length, seq);
          payloadLength = length;
          sequenceId = seq;
          state = State.PAYLOAD;
          break;
        case PAYLOAD:
          if (in.readableBytes() < payloadLength) {
            return;
          }
          out.add(new MysqlPacket(sequenceId, in.readRetainedSlice(payloadLength)));
          state = State.HEADER;
          break;
        case FAILED:
          in.skipBytes(in.readableBytes());
          return;
        default:
          throw new IllegalStateException("state " + state);
      }
    }
  }

  private void checkLength(int length, int seq) {
    boolean tooLong =
        length > maxPayloadBytes
            || (length == MysqlPacket.MAX_FRAME_PAYLOAD
                && maxPayloadBytes < MysqlPacket.MAX_FRAME_PAYLOAD);
    if (tooLong) {
      state = State.FAILED;
      throw new TooLongFrameException(
          "MySQL packet (sequence id "
              + seq
              + ") announces a payload of "
              + length
              + (length == MysqlPacket.MAX_FRAME_PAYLOAD ? "+ bytes (continued)" : " bytes")
              + ", over the limit of "
              + maxPayloadBytes
              + " bytes; closing the stream");
    }
  }
}
