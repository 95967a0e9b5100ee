package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Random;
import org.binlogrelay.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

class PacketReaderTest {

  /** Frames {@code payload} as the server would, splitting at 0xFFFFFF and adding the empty trailer if due. */
  static byte[] frames(int firstSequence, byte[]... payloads) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int seq = firstSequence;
    for (byte[] payload : payloads) {
      int at = 0;
      while (true) {
        int len = Math.min(PacketReader.MAX_FRAME, payload.length - at);
        out.write(len & 0xff);
        out.write(len >> 8 & 0xff);
        out.write(len >> 16 & 0xff);
        out.write(seq++ & 0xff);
        out.write(payload, at, len);
        at += len;
        if (len < PacketReader.MAX_FRAME) {
          break;
        }
      }
    }
    return out.toByteArray();
  }

  /** Hands out at most {@code chunk} bytes per read, like a slow socket. */
  static InputStream trickle(byte[] bytes, int chunk) {
    return new FilterInputStream(new ByteArrayInputStream(bytes)) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return super.read(b, off, Math.min(len, chunk));
      }
    };
  }

  @Test
  void readsPacketsFedOneByteAtATime() throws IOException {
    byte[] a = {0, 1, 2, 3};
    byte[] b = "hello".getBytes();
    PacketReader reader = new PacketReader(trickle(frames(1, a, b, new byte[0]), 1), 100);
    reader.expectSequence(1);
    assertThat(reader.read()).isEqualTo(a);
    assertThat(reader.read()).isEqualTo(b);
    assertThat(reader.read()).isEmpty();
  }

  @Test
  void sequenceIdsWrapAt256() throws IOException {
    byte[][] payloads = new byte[300][];
    for (int i = 0; i < payloads.length; i++) {
      payloads[i] = new byte[] {(byte) i};
    }
    PacketReader reader = new PacketReader(new ByteArrayInputStream(frames(1, payloads)), 10);
    reader.expectSequence(1);
    for (int i = 0; i < payloads.length; i++) {
      assertThat(reader.read()).containsExactly((byte) i);
    }
  }

  @Test
  void refusesAnOutOfStepSequenceId() {
    PacketReader reader = new PacketReader(new ByteArrayInputStream(frames(2, new byte[] {1})), 10);
    reader.expectSequence(1);
    assertThatThrownBy(reader::read).isInstanceOf(ProtocolException.class)
        .hasMessageContaining("sequence id 2 where 1 was due");
  }

  @Test
  void refusesAPacketOverTheLimitBeforeReadingIt() {
    byte[] header = {(byte) 0xff, (byte) 0xff, (byte) 0x7f, 0}; // claims 8 MiB, nothing follows
    PacketReader reader = new PacketReader(new ByteArrayInputStream(header), 1 << 20);
    assertThatThrownBy(reader::read).isInstanceOf(ProtocolException.class).hasMessageContaining("over the limit");
  }

  @Test
  void aShortReadIsAnEof() {
    byte[] framed = frames(0, new byte[] {1, 2, 3, 4, 5});
    PacketReader reader = new PacketReader(new ByteArrayInputStream(Arrays.copyOf(framed, framed.length - 2)), 10);
    assertThatThrownBy(reader::read).isInstanceOf(EOFException.class).hasMessageContaining("3 of the 5 bytes");
  }

  @Test
  void joinsContinuationFrames() throws IOException {
    Random random = new Random(42);
    byte[] big = new byte[PacketReader.MAX_FRAME + 1000];
    random.nextBytes(big);
    byte[] exact = new byte[PacketReader.MAX_FRAME];
    random.nextBytes(exact);
    byte[] framed = frames(1, big, exact, new byte[] {7});
    PacketReader reader = new PacketReader(trickle(framed, 65536), 2 * PacketReader.MAX_FRAME);
    reader.expectSequence(1);
    assertThat(reader.read()).isEqualTo(big);
    assertThat(reader.read()).as("exactly 0xFFFFFF bytes, then an empty frame").isEqualTo(exact);
    assertThat(reader.read()).containsExactly(7);
  }

  @Test
  void theLimitCoversTheJoinedPayload() {
    byte[] big = new byte[PacketReader.MAX_FRAME + 10];
    PacketReader reader = new PacketReader(new ByteArrayInputStream(frames(0, big)), PacketReader.MAX_FRAME + 5);
    assertThatThrownBy(reader::read).isInstanceOf(ProtocolException.class).hasMessageContaining("over the limit");
  }
}
