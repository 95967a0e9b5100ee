package org.binlogrelay.protocol.packet;

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
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PacketDecoderTest {
  private final List<ByteBuf> written = new ArrayList<>();
  private final TrackingAllocator alloc = new TrackingAllocator();

  @AfterEach
  void everyBufferReleased() {
    for (ByteBuf b : written) {
      assertEquals(0, b.refCnt(), "input buffer still referenced: leak");
    }
    alloc.assertAllReleased();
  }

  @Test
  void framesFedOneByteAtATime() {
    EmbeddedChannel ch = TrackingAllocator.channel(alloc, new PacketDecoder(1 << 20));
    byte[] stream =
        concat(
            Frames.frame(0, bytes(5, 1)),
            Frames.frame(1, new byte[0]),
            Frames.frame(2, bytes(300, 2)));
    for (byte b : stream) {
      write(ch, new byte[] {b});
    }
    assertPacket(ch.readInbound(), 0, bytes(5, 1));
    assertPacket(ch.readInbound(), 1, new byte[0]);
    assertPacket(ch.readInbound(), 2, bytes(300, 2));
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void framesFedInRandomChunks() {
    Random random = new Random(42);
    EmbeddedChannel ch = TrackingAllocator.channel(alloc, new PacketDecoder(1 << 20));
    List<byte[]> payloads = new ArrayList<>();
    byte[] stream = new byte[0];
    for (int i = 0; i < 300; i++) {
      byte[] p = new byte[random.nextInt(3) == 0 ? random.nextInt(70_000) : random.nextInt(40)];
      random.nextBytes(p);
      payloads.add(p);
      stream = concat(stream, Frames.frame(i & 0xff, p));
    }
    for (int at = 0; at < stream.length; ) {
      int n = Math.min(stream.length - at, 1 + random.nextInt(9000));
      write(ch, Arrays.copyOfRange(stream, at, at + n));
      at += n;
    }
    for (int i = 0; i < payloads.size(); i++) {
      assertPacket(ch.readInbound(), i & 0xff, payloads.get(i));
    }
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void announcedLengthOverLimitFailsOnTheHeaderAlone() {
    PacketDecoder decoder = new PacketDecoder(1000);
    EmbeddedChannel ch = TrackingAllocator.channel(alloc, decoder);
    // Only the 4 header bytes are written: the decoder must refuse them without waiting for (or
    // buffering)
    // the 1001 announced bytes.
    TooLongFrameException e =
        assertThrows(
            TooLongFrameException.class, () -> write(ch, new byte[] {(byte) 0xe9, 0x03, 0, 7}));
    assertTrue(e.getMessage().contains("1001 bytes"), e.getMessage());
    assertTrue(e.getMessage().contains("sequence id 7"), e.getMessage());
    assertEquals(PacketDecoder.State.FAILED, decoder.state());
    assertEquals(0, alloc.allocations(), "nothing allocated for the announced payload");
    // Whatever follows is discarded: the stream position is lost.
    write(ch, Frames.frame(0, bytes(3, 1)));
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void continuationFrameRefusedWhenTheLimitIsBelowOneFrame() {
    EmbeddedChannel ch =
        TrackingAllocator.channel(alloc, new PacketDecoder(MysqlPacket.MAX_FRAME_PAYLOAD - 1));
    assertThrows(
        TooLongFrameException.class,
        () -> write(ch, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0}));
    assertFalse(ch.finish());
  }

  @Test
  void frameAtTheLimitIsAccepted() {
    EmbeddedChannel ch = TrackingAllocator.channel(alloc, new PacketDecoder(10));
    write(ch, Frames.frame(9, bytes(10, 3)));
    assertPacket(ch.readInbound(), 9, bytes(10, 3));
    assertFalse(ch.finish());
  }

  @Test
  void partialFrameAtCloseIsDroppedWithoutLeak() {
    EmbeddedChannel ch = TrackingAllocator.channel(alloc, new PacketDecoder(100));
    write(ch, new byte[] {10, 0, 0, 1, 1, 2, 3});
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  private void write(EmbeddedChannel ch, byte[] bytes) {
    ByteBuf b = Unpooled.wrappedBuffer(bytes);
    written.add(b);
    ch.writeInbound(b);
  }

  static void assertPacket(Object msg, int seq, byte[] payload) {
    MysqlPacket p = (MysqlPacket) msg;
    try {
      assertEquals(seq, p.sequenceId());
      assertArrayEquals(payload, ByteBufUtil.getBytes(p.payload()));
    } finally {
      p.release();
    }
  }

  static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + seed);
    }
    return b;
  }

  static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }
}
