package org.binlogrelay.protocol.packet;

import static org.binlogrelay.protocol.packet.PacketDecoderTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PacketEncoderTest {
  private static final int MAX_FRAME = MysqlPacket.MAX_FRAME_PAYLOAD;

  @ParameterizedTest
  @ValueSource(
      ints = {0, 1, 250, MAX_FRAME - 1, MAX_FRAME, MAX_FRAME + 1, 2 * MAX_FRAME, 2 * MAX_FRAME + 3})
  void writesTheFramesMysqlWrites(int length) {
    byte[] payload = bytes(length, length);
    ByteBuf buf =
        Unpooled.buffer(length)
            .writeBytes(payload); // not wrappedBuffer: empty would be the shared EMPTY_BUFFER
    TrackingAllocator alloc = new TrackingAllocator();
    EmbeddedChannel out = TrackingAllocator.channel(alloc, new PacketEncoder());
    out.writeOutbound(new MysqlPacket(250, buf));
    byte[] wire = drain(out);
    assertEquals(0, buf.refCnt(), "payload released once written");
    assertArrayEquals(Frames.logical(250, payload), wire);
    assertFalse(out.finish());

    EmbeddedChannel in =
        TrackingAllocator.channel(
            alloc, new PacketDecoder(Integer.MAX_VALUE), new PacketAggregator());
    ByteBuf input = Unpooled.wrappedBuffer(wire);
    in.writeInbound(input);
    MysqlPacket back = in.readInbound();
    try {
      assertEquals(250, back.sequenceId());
      assertEquals(MysqlPacket.frameCount(length), back.frameCount());
      assertArrayEquals(payload, ByteBufUtil.getBytes(back.payload()));
    } finally {
      back.release();
    }
    assertNull(in.readInbound());
    assertFalse(in.finish());
    assertEquals(0, input.refCnt());
    alloc.assertAllReleased();
  }

  private static byte[] drain(EmbeddedChannel ch) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (ByteBuf b = ch.readOutbound(); b != null; b = ch.readOutbound()) {
      all.writeBytes(ByteBufUtil.getBytes(b));
      b.release();
    }
    return all.toByteArray();
  }
}
