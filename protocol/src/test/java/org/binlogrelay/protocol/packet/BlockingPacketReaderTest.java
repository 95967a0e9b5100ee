package org.binlogrelay.protocol.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.binlogrelay.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

class BlockingPacketReaderTest {
  private static final int MAX_FRAME = MysqlPacket.MAX_FRAME_PAYLOAD;

  /**
   * Frames {@code payloads} as a server would, splitting at 0xFFFFFF and adding the empty trailer
   * if due.
   */
  static byte[] frames(int firstSequence, byte[]... payloads) {
    return Frames.packets(firstSequence, payloads);
  }

  /** Frames a payload as a server does: 0xFFFFFF-byte frames, then the rest (possibly empty). */
  static void frame(ByteArrayOutputStream out, byte[] payload, int[] sequence) {
    int at = 0;
    while (true) {
      int n = Math.min(MAX_FRAME, payload.length - at);
      out.write(n);
      out.write(n >>> 8);
      out.write(n >>> 16);
      out.write(sequence[0]++ & 0xff);
      out.write(payload, at, n);
      at += n;
      if (n < MAX_FRAME) {
        return;
      }
    }
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

  /** Returns at most a few random bytes per read, as a slow socket would. */
  static InputStream trickle(byte[] bytes, long seed) {
    Random random = new Random(seed);
    return new ByteArrayInputStream(bytes) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, 1 + random.nextInt(7000)));
      }
    };
  }

  static byte[] payload(int length, int seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static BlockingPacketReader reader(InputStream in, int bufferSize, int maxPacket) {
    return new BlockingPacketReader(in, bufferSize, maxPacket, "the server", "");
  }

  private static BlockingPacketReader reader(InputStream in, int maxPacket) {
    return reader(in, 64, maxPacket);
  }

  // read(): a new array per packet

  @Test
  void readsPacketsFedOneByteAtATime() throws IOException {
    byte[] a = {0, 1, 2, 3};
    byte[] b = "hello".getBytes(StandardCharsets.US_ASCII);
    BlockingPacketReader reader = reader(trickle(frames(1, a, b, new byte[0]), 1), 100);
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
    BlockingPacketReader reader = reader(new ByteArrayInputStream(frames(1, payloads)), 10);
    reader.expectSequence(1);
    for (int i = 0; i < payloads.length; i++) {
      assertThat(reader.read()).containsExactly((byte) i);
    }
  }

  @Test
  void handsOverWhatItReadAheadAndTheNextSequenceId() throws IOException {
    byte[] bytes = frames(1, new byte[] {1, 2}, new byte[] {3}, new byte[] {4, 5, 6});
    BlockingPacketReader reader = reader(new ByteArrayInputStream(bytes), 100);
    reader.expectSequence(1);
    assertThat(reader.next()).isEqualTo(2);
    assertThat(reader.expectedSequence()).isEqualTo(2);
    // The one read took all of it: the two packets not returned are handed over, frames and all.
    assertThat(reader.takeBuffered()).isEqualTo(Arrays.copyOfRange(bytes, 4 + 2, bytes.length));
    assertThat(reader.takeBuffered()).isEmpty();
    assertThat(reader.bytesRead()).isEqualTo(4 + 2);
  }

  @Test
  void refusesAnOutOfStepSequenceId() {
    BlockingPacketReader reader = reader(new ByteArrayInputStream(frames(2, new byte[] {1})), 10);
    reader.expectSequence(1);
    assertThatThrownBy(reader::read)
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("sequence id 2 where 1 was due");
  }

  @Test
  void refusesAPacketOverTheLimitBeforeReadingIt() {
    byte[] header = {(byte) 0xff, (byte) 0xff, (byte) 0x7f, 0}; // claims 8 MiB, nothing follows
    BlockingPacketReader reader =
        new BlockingPacketReader(
            new ByteArrayInputStream(header), 64, 1 << 20, "the server", "(raise the limit)");
    assertThatThrownBy(reader::read)
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("over the limit")
        .hasMessageEndingWith("bytes (raise the limit)");
  }

  @Test
  void aShortReadIsAnEof() {
    byte[] framed = frames(0, new byte[] {1, 2, 3, 4, 5});
    BlockingPacketReader reader =
        reader(new ByteArrayInputStream(Arrays.copyOf(framed, framed.length - 2)), 10);
    assertThatThrownBy(reader::read)
        .isInstanceOf(EOFException.class)
        .hasMessageContaining("the server closed the connection")
        .hasMessageContaining("3 of 5 bytes");
  }

  @Test
  void joinsContinuationFrames() throws IOException {
    Random random = new Random(42);
    byte[] big = new byte[MAX_FRAME + 1000];
    random.nextBytes(big);
    byte[] exact = new byte[MAX_FRAME];
    random.nextBytes(exact);
    byte[] framed = frames(1, big, exact, new byte[] {7});
    BlockingPacketReader reader = reader(trickle(framed, 65536), 2 * MAX_FRAME);
    reader.expectSequence(1);
    assertThat(reader.read()).isEqualTo(big);
    assertThat(reader.read()).as("exactly 0xFFFFFF bytes, then an empty frame").isEqualTo(exact);
    assertThat(reader.read()).containsExactly(7);
  }

  @Test
  void theLimitCoversTheJoinedPayload() {
    byte[] big = new byte[MAX_FRAME + 10];
    BlockingPacketReader reader = reader(new ByteArrayInputStream(frames(0, big)), MAX_FRAME + 5);
    assertThatThrownBy(reader::read)
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("over the limit");
  }

  @Test
  void readDoesNotGrowTheBufferForABigPacket() throws IOException {
    byte[] big = payload(100_000, 7);
    BlockingPacketReader reader =
        reader(new ByteArrayInputStream(frames(0, big, new byte[] {1})), 1 << 20);
    assertThat(reader.read()).isEqualTo(big);
    assertThat(reader.read()).containsExactly(1);
    assertThat(reader.bytesRead()).isEqualTo(4 + 100_000 + 4 + 1);
  }

  // next(): payloads in place in reused buffers

  @Test
  void readsPacketsCutAnywhereByTheSocket() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int[] seq = {0};
    byte[][] payloads = new byte[200][];
    for (int i = 0; i < payloads.length; i++) {
      payloads[i] = payload(i * 397 % 20_000, i);
      frame(out, payloads[i], seq);
    }
    for (long seed = 0; seed < 5; seed++) {
      BlockingPacketReader reader = reader(trickle(out.toByteArray(), seed), 64, 1 << 20);
      for (byte[] expected : payloads) {
        int n = reader.next();
        assertThat(Arrays.copyOfRange(reader.array(), reader.offset(), reader.offset() + n))
            .isEqualTo(expected);
      }
      assertThat(reader.bytesRead()).isEqualTo(out.size());
      assertThatThrownBy(reader::next).isInstanceOf(EOFException.class);
    }
  }

  @Test
  void mixesReadAndNext() throws IOException {
    byte[][] payloads = {payload(10, 1), payload(5000, 2), payload(0, 3), payload(300, 4)};
    BlockingPacketReader reader = reader(trickle(frames(0, payloads), 0L), 64, 1 << 20);
    assertThat(reader.read()).isEqualTo(payloads[0]);
    reader.next();
    assertThat(reader.copy()).isEqualTo(payloads[1]);
    assertThat(reader.read()).isEqualTo(payloads[2]);
    reader.next();
    assertThat(reader.copy()).isEqualTo(payloads[3]);
    assertThat(reader.lastSequence()).isEqualTo(3);
  }

  @Test
  void joinsPacketsSplitAt16MiB() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int[] seq = {250};
    byte[] exact = payload(MAX_FRAME, 1);
    byte[] longer = payload(2 * MAX_FRAME + 5, 2);
    byte[] small = payload(10, 3);
    frame(out, exact, seq);
    frame(out, longer, seq);
    frame(out, small, seq);
    BlockingPacketReader reader = reader(trickle(out.toByteArray(), 9L), 1 << 16, 64 << 20);
    reader.expectSequence(250);
    assertThat(reader.next()).isEqualTo(exact.length);
    assertThat(reader.copy()).isEqualTo(exact);
    assertThat(reader.next()).isEqualTo(longer.length);
    assertThat(reader.copy()).isEqualTo(longer);
    assertThat(reader.next()).isEqualTo(10);
    assertThat(reader.copy()).isEqualTo(small);
    assertThat(reader.lastSequence()).isEqualTo((250 + 2 + 3 + 1 - 1) & 0xff);
  }

  @Test
  void nextRefusesAPacketOverTheLimitBeforeReadingIt() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    frame(out, payload(MAX_FRAME + 1, 4), new int[] {0});
    BlockingPacketReader reader = reader(new ByteArrayInputStream(out.toByteArray()), 64, 1 << 20);
    assertThatThrownBy(reader::next)
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("over the limit");
  }

  @Test
  void nextRefusesASequenceOutOfStep() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    frame(out, payload(5, 5), new int[] {3});
    BlockingPacketReader reader = reader(new ByteArrayInputStream(out.toByteArray()), 64, 1 << 20);
    reader.expectSequence(1);
    assertThatThrownBy(reader::next)
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("out of step");
  }

  @Test
  void aPacketCutShortIsAnEof() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    frame(out, payload(100, 6), new int[] {0});
    byte[] cut = Arrays.copyOf(out.toByteArray(), 50);
    BlockingPacketReader reader = reader(new ByteArrayInputStream(cut), 64, 1 << 20);
    assertThatThrownBy(reader::next)
        .isInstanceOf(EOFException.class)
        .hasMessageContaining("46 of 100");
  }
}
