package org.binlogrelay.protocol.packet;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * Writes a logical {@link MysqlPacket} as MySQL frames: the payload is cut into chunks of 0xFFFFFF
 * bytes, each prefixed by {@code [u24 LE length][u8 sequence id]}, ids counting up from the
 * packet's {@link MysqlPacket#sequenceId()} modulo 256; when the payload length is a multiple of
 * 0xFFFFFF (including zero, which is one empty frame) a last empty frame closes it.
 *
 * <p>Each frame goes out as one buffer: the header followed by a retained slice of the payload (no
 * copy of the payload). The packet's reference is released after encoding, as {@link
 * MessageToMessageEncoder} does. Stateless, therefore {@code @Sharable}.
 */
@ChannelHandler.Sharable
public final class PacketEncoder extends MessageToMessageEncoder<MysqlPacket> {

  public PacketEncoder() {
    super(MysqlPacket.class);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, MysqlPacket packet, List<Object> out) {
    ByteBuf payload = packet.payload();
    int seq = packet.sequenceId();
    int frames = packet.frameCount();
    for (int i = 0; i < frames; i++) {
      int chunk = Math.min(payload.readableBytes(), MysqlPacket.MAX_FRAME_PAYLOAD);
      ByteBuf header = ctx.alloc().buffer(MysqlPacket.HEADER_SIZE);
      header.writeMediumLE(chunk).writeByte(seq);
      if (chunk == 0) {
        out.add(header);
      } else {
        out.add(
            ctx.alloc()
                .compositeBuffer(2)
                .addComponents(true, header, payload.readRetainedSlice(chunk)));
      }
      seq = (seq + 1) & 0xff;
    }
  }
}
