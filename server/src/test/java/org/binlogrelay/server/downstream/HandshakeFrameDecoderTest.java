package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.packet.MysqlPacket;
import org.junit.jupiter.api.Test;

class HandshakeFrameDecoderTest {

  @Test
  void framesOnePacketAndHandsTheRestOnWhenRemoved() {
    List<Object> seen = new ArrayList<>();
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.pipeline().addLast("frame", new HandshakeFrameDecoder(100));
    ch.pipeline()
        .addLast(
            "probe",
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                seen.add(msg);
                if (msg instanceof MysqlPacket) {
                  ctx.pipeline().remove("frame");
                }
              }
            });
    byte[] stream = {3, 0, 0, 1, 'a', 'b', 'c', 0x16, 0x03, 0x01, 0x02, 0x00};
    for (int i = 0; i < stream.length; i += 2) {
      ch.writeInbound(Unpooled.wrappedBuffer(stream, i, Math.min(2, stream.length - i)));
    }
    assertThat(seen).hasSizeGreaterThanOrEqualTo(2);
    MysqlPacket packet = (MysqlPacket) seen.get(0);
    assertThat(packet.sequenceId()).isEqualTo(1);
    assertThat(ByteBufUtil.getBytes(packet.payload())).containsExactly('a', 'b', 'c');
    packet.release();
    ByteBuf rest = Unpooled.buffer();
    for (Object o : seen.subList(1, seen.size())) {
      rest.writeBytes((ByteBuf) o);
      ((ByteBuf) o).release();
    }
    assertThat(ByteBufUtil.getBytes(rest))
        .as("the TLS bytes after the SSLRequest, untouched")
        .containsExactly(0x16, 0x03, 0x01, 0x02, 0x00);
    rest.release();
    assertFalse(ch.finish());
  }

  @Test
  void refusesAnOversizedFirstPacketFromItsHeader() {
    EmbeddedChannel ch = new EmbeddedChannel(new HandshakeFrameDecoder(100));
    assertThatThrownBy(() -> ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {101, 0, 0, 1})))
        .isInstanceOf(TooLongFrameException.class)
        .hasMessageContaining("101 bytes exceeds 100");
    assertFalse(ch.finish());
  }
}
