package org.binlogrelay.bench.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.packet.Frames;
import org.binlogrelay.protocol.packet.MysqlPacket;
import org.junit.jupiter.api.Test;

class PacketFramesTest {
  private static final int MAX_FRAME = MysqlPacket.MAX_FRAME_PAYLOAD;

  static ReadableByteChannel trickle(byte[] bytes, long seed) {
    return new TrickleChannel(bytes, seed);
  }

  private static byte[] payload(int length, int seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Every packet {@code frames} returns until the channel's end. */
  private static List<byte[]> readAll(PacketFrames frames, ReadableByteChannel channel)
      throws IOException {
    List<byte[]> out = new ArrayList<>();
    while (true) {
      while (frames.next()) {
        out.add(
            Arrays.copyOfRange(frames.array(), frames.offset(), frames.offset() + frames.length()));
      }
      if (frames.readFrom(channel) < 0) {
        return out;
      }
    }
  }

  @Test
  void returnsEveryPacketWholeFromReadsOfAnySizeAfterTheBytesHandedOver() throws IOException {
    byte[][] payloads = {
      payload(10, 1),
      new byte[0],
      payload(MAX_FRAME + 100, 2), // two frames
      payload(300, 3),
      payload(MAX_FRAME, 4), // a full frame, then the empty trailer
      payload(70_000, 5), // over the initial buffer
      payload(1, 6)
    };
    byte[] stream = Frames.packets(1, payloads);
    int handedOver = 20;
    PacketFrames frames = new PacketFrames(Arrays.copyOf(stream, handedOver), 256, 64 << 20, 1);
    List<byte[]> read =
        readAll(frames, trickle(Arrays.copyOfRange(stream, handedOver, stream.length), 42));
    assertThat(read).hasSize(payloads.length);
    for (int i = 0; i < payloads.length; i++) {
      assertThat(read.get(i)).as("packet %d", i).isEqualTo(payloads[i]);
    }
    assertThat(frames.bytesRead()).isEqualTo(stream.length);
  }

  @Test
  void sequenceIdsWrapAt256() throws IOException {
    byte[][] payloads = new byte[300][];
    for (int i = 0; i < payloads.length; i++) {
      payloads[i] = new byte[] {(byte) i};
    }
    PacketFrames frames = new PacketFrames(new byte[0], 64, 10, 200);
    assertThat(readAll(frames, trickle(Frames.packets(200, payloads), 7))).hasSize(300);
  }

  @Test
  void refusesAnOutOfStepSequenceId() throws IOException {
    PacketFrames frames = new PacketFrames(Frames.packets(2, new byte[] {1}), 64, 10, 1);
    assertThatThrownBy(frames::next)
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("sequence id 2 where 1 was due");
  }

  @Test
  void refusesAPacketOverTheLimitBeforeBufferingIt() {
    byte[] header = {(byte) 0xff, (byte) 0xff, (byte) 0x7f, 1}; // claims 8 MiB, nothing follows
    PacketFrames frames = new PacketFrames(header, 64, 1 << 20, 1);
    assertThatThrownBy(() -> frames.readFrom(trickle(new byte[0], 1)))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("over the limit of 1048576 bytes");
  }

  @Test
  void refusesFramesThatAddUpToMoreThanTheLimit() {
    byte[] stream = Frames.packets(1, payload(MAX_FRAME + 10, 9));
    PacketFrames frames = new PacketFrames(new byte[0], 64, MAX_FRAME + 5, 1);
    assertThatThrownBy(() -> readAll(frames, trickle(stream, 3)))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("over the limit");
  }

  @Test
  void aPacketCutByTheEndOfTheStreamIsNotReturned() throws IOException {
    byte[] stream = Frames.packets(1, payload(100, 1), payload(100, 2));
    PacketFrames frames = new PacketFrames(new byte[0], 64, 1000, 1);
    List<byte[]> read = readAll(frames, trickle(Arrays.copyOf(stream, stream.length - 1), 5));
    assertThat(read).hasSize(1);
  }
}
