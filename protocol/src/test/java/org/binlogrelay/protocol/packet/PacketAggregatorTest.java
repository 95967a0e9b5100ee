package org.binlogrelay.protocol.packet;

import static org.binlogrelay.protocol.packet.PacketDecoderTest.bytes;
import static org.binlogrelay.protocol.packet.PacketDecoderTest.concat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PacketAggregatorTest {
  private static final int MAX_FRAME = MysqlPacket.MAX_FRAME_PAYLOAD;
  private final List<ByteBuf> written = new ArrayList<>();
  private final TrackingAllocator alloc = new TrackingAllocator();

  @AfterEach
  void everyBufferReleased() {
    for (ByteBuf b : written) {
      assertEquals(0, b.refCnt(), "input buffer still referenced: leak");
    }
    alloc.assertAllReleased();
  }

  private EmbeddedChannel channel(int max) {
    return TrackingAllocator.channel(alloc, new PacketDecoder(max), new PacketAggregator(max));
  }

  @Test
  void shortPacketsPassThrough() {
    EmbeddedChannel ch = channel(1 << 20);
    write(ch, concat(Frames.frame(0, bytes(10, 1)), Frames.frame(1, new byte[0])));
    PacketDecoderTest.assertPacket(ch.readInbound(), 0, bytes(10, 1));
    PacketDecoderTest.assertPacket(ch.readInbound(), 1, new byte[0]);
    assertFalse(ch.finish());
  }

  @Test
  void payloadOfExactlyOneFrameEndsWithAnEmptyFrame() {
    byte[] payload = bytes(MAX_FRAME, 5);
    byte[] wire = Frames.logical(3, payload);
    assertEquals(MAX_FRAME + 4 + 4, wire.length, "full frame plus empty frame");
    EmbeddedChannel ch = channel(PacketAggregator.DEFAULT_MAX_PAYLOAD);
    writeInChunks(ch, wire, new Random(1));
    MysqlPacket p = ch.readInbound();
    assertEquals(3, p.sequenceId());
    assertEquals(4, p.lastSequenceId());
    assertEquals(5, p.nextSequenceId());
    assertPayload(p, payload);
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void payloadOfTwoFramesSpansThreeFrames() {
    byte[] payload = bytes(2 * MAX_FRAME, 6);
    EmbeddedChannel ch = channel(PacketAggregator.DEFAULT_MAX_PAYLOAD);
    writeInChunks(ch, Frames.logical(254, payload), new Random(2));
    MysqlPacket p = ch.readInbound();
    assertEquals(254, p.sequenceId());
    assertEquals(3, p.frameCount());
    assertEquals(0, p.lastSequenceId(), "254, 255, 0: wraps modulo 256");
    assertPayload(p, payload);
    assertFalse(ch.finish());
  }

  @Test
  void payloadOneByteOverAFrame() {
    byte[] payload = bytes(MAX_FRAME + 1, 7);
    EmbeddedChannel ch = channel(PacketAggregator.DEFAULT_MAX_PAYLOAD);
    write(ch, Frames.logical(0, payload));
    write(ch, Frames.frame(2, bytes(4, 8)));
    assertPayload(ch.readInbound(), payload);
    PacketDecoderTest.assertPacket(ch.readInbound(), 2, bytes(4, 8));
    assertFalse(ch.finish());
  }

  @Test
  void sequenceGapInsideALogicalPacketIsRefused() {
    byte[] full = bytes(MAX_FRAME, 9);
    EmbeddedChannel ch = channel(PacketAggregator.DEFAULT_MAX_PAYLOAD);
    write(ch, Frames.frame(0, full));
    CorruptedFrameException e =
        assertThrows(CorruptedFrameException.class, () -> write(ch, Frames.frame(2, bytes(1, 1))));
    assertTrue(e.getMessage().contains("sequence id 2, expected 1"), e.getMessage());
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void aggregatedSizeOverLimitIsRefusedAndReleased() {
    PacketAggregator aggregator = new PacketAggregator(MAX_FRAME + 10);
    EmbeddedChannel ch =
        TrackingAllocator.channel(alloc, new PacketDecoder(MAX_FRAME + 10), aggregator);
    write(ch, Frames.frame(0, bytes(MAX_FRAME, 1)));
    assertTrue(aggregator.isCollecting());
    TooLongFrameException e =
        assertThrows(TooLongFrameException.class, () -> write(ch, Frames.frame(1, bytes(11, 1))));
    assertTrue(e.getMessage().contains(String.valueOf(MAX_FRAME + 11)), e.getMessage());
    assertFalse(aggregator.isCollecting());
    assertFalse(ch.finish());
  }

  @Test
  void shortPacketOverTheAggregatorLimitIsRefused() {
    EmbeddedChannel ch = TrackingAllocator.channel(alloc, new PacketAggregator(5));
    ByteBuf payload = Unpooled.wrappedBuffer(bytes(6, 1));
    assertThrows(TooLongFrameException.class, () -> ch.writeInbound(new MysqlPacket(0, payload)));
    assertEquals(0, payload.refCnt());
    assertFalse(ch.finish());
  }

  @Test
  void closingWhileCollectingReleasesThePartialPayload() {
    PacketAggregator aggregator = new PacketAggregator(PacketAggregator.DEFAULT_MAX_PAYLOAD);
    EmbeddedChannel ch = TrackingAllocator.channel(alloc, aggregator);
    ByteBuf first = Unpooled.wrappedBuffer(bytes(MAX_FRAME, 2));
    ch.writeInbound(new MysqlPacket(0, first));
    assertTrue(aggregator.isCollecting());
    assertEquals(1, first.refCnt(), "held by the partial packet");
    assertFalse(ch.finish());
    assertEquals(0, first.refCnt());
  }

  private void write(EmbeddedChannel ch, byte[] bytes) {
    ByteBuf b = Unpooled.wrappedBuffer(bytes);
    written.add(b);
    ch.writeInbound(b);
  }

  private void writeInChunks(EmbeddedChannel ch, byte[] wire, Random random) {
    for (int at = 0; at < wire.length; ) {
      int n = Math.min(wire.length - at, 1 + random.nextInt(3_000_000));
      write(ch, Arrays.copyOfRange(wire, at, at + n));
      at += n;
    }
  }

  private static void assertPayload(Object msg, byte[] expected) {
    MysqlPacket p = (MysqlPacket) msg;
    try {
      assertEquals(expected.length, p.payload().readableBytes());
      assertArrayEquals(expected, ByteBufUtil.getBytes(p.payload()));
    } finally {
      p.release();
    }
  }
}
