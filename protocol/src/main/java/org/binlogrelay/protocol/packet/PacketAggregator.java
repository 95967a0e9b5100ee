package org.binlogrelay.protocol.packet;

import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Joins the frames of one logical MySQL packet. Placed after {@link PacketDecoder}: every frame of
 * exactly 0xFFFFFF payload bytes is continued by the next one, whose sequence id must be the
 * previous one plus one (mod 256); the first shorter frame (possibly empty) ends the logical
 * packet. Frames that are not continued pass through untouched.
 *
 * <p>The joined payload is a {@link CompositeByteBuf} of the frames' slices: no copy. The total is
 * checked against {@code maxPayloadBytes} before each frame is added; on a too-long total ({@link
 * TooLongFrameException}) or a sequence gap ({@link CorruptedFrameException}) the partial payload
 * is released and the exception propagates; so is it when the handler is removed or the channel
 * closes.
 *
 * <p>States: idle ({@code pending == null}) or collecting. One instance per channel; event-loop
 * only.
 */
public final class PacketAggregator extends MessageToMessageDecoder<MysqlPacket> {
  /** Default logical limit: 1 GiB, MySQL's largest {@code max_allowed_packet}. */
  public static final int DEFAULT_MAX_PAYLOAD = 1 << 30;

  private final int maxPayloadBytes;
  private CompositeByteBuf pending;
  private int firstSequenceId;
  private int expectedSequenceId;

  public PacketAggregator() {
    this(DEFAULT_MAX_PAYLOAD);
  }

  /**
   * @param maxPayloadBytes largest logical payload accepted
   */
  public PacketAggregator(int maxPayloadBytes) {
    super(MysqlPacket.class);
    if (maxPayloadBytes < 0) {
      throw new IllegalArgumentException("maxPayloadBytes " + maxPayloadBytes + " is negative");
    }
    this.maxPayloadBytes = maxPayloadBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, MysqlPacket frame, List<Object> out) {
    int length = frame.payload().readableBytes();
    boolean continued = length == MysqlPacket.MAX_FRAME_PAYLOAD;
    if (pending == null) {
      checkTotal(length, frame.sequenceId());
      if (!continued) {
        out.add(frame.retain());
        return;
      }
      firstSequenceId = frame.sequenceId();
      pending = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
    } else {
      if (frame.sequenceId() != expectedSequenceId) {
        discard();
        throw new CorruptedFrameException(
            "MySQL packet continuation has sequence id "
                + frame.sequenceId()
                + ", expected "
                + expectedSequenceId
                + " (logical packet started at sequence id "
                + firstSequenceId
                + ")");
      }
      checkTotal((long) pending.readableBytes() + length, firstSequenceId);
    }
    pending.addComponent(true, frame.payload().retain());
    expectedSequenceId = (frame.sequenceId() + 1) & 0xff;
    if (!continued) {
      MysqlPacket whole = new MysqlPacket(firstSequenceId, pending);
      pending = null;
      out.add(whole);
    }
  }

  private void checkTotal(long total, int seq) {
    if (total > maxPayloadBytes) {
      discard();
      throw new TooLongFrameException(
          "MySQL logical packet starting at sequence id "
              + seq
              + " exceeds "
              + maxPayloadBytes
              + " bytes ("
              + total
              + " so far)");
    }
  }

  /** True while a continued packet is being collected. */
  boolean isCollecting() {
    return pending != null;
  }

  private void discard() {
    if (pending != null) {
      pending.release();
      pending = null;
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
    discard();
    super.handlerRemoved(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    discard();
    super.channelInactive(ctx);
  }
}
