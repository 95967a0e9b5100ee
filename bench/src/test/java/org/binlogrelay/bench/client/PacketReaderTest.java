package org.binlogrelay.bench.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Random;
import org.binlogrelay.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

class PacketReaderTest {

  /** Frames a payload as a server does: 0xFFFFFF-byte frames, then the rest (possibly empty). */
  static void frame(ByteArrayOutputStream out, byte[] payload, int[] sequence) {
    int at = 0;
    while (true) {
      int n = Math.min(PacketReader.MAX_FRAME, payload.length - at);
      out.write(n);
      out.write(n >>> 8);
      out.write(n >>> 16);
      out.write(sequence[0]++ & 0xff);
      out.write(payload, at, n);
      at += n;
      if (n < PacketReader.MAX_FRAME) {
        return;
      }
    }
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
      PacketReader reader = new PacketReader(trickle(out.toByteArray(), seed), 64, 1 << 20);
      for (byte[] expected : payloads) {
        int n = reader.next();
        assertThat(Arrays.copyOfRange(reader.array(), reader.offset(), reader.offset() + n)).isEqualTo(expected);
      }
      assertThat(reader.bytesRead()).isEqualTo(out.size());
      assertThatThrownBy(reader::next).isInstanceOf(EOFException.class);
    }
  }

  @Test
  void joinsPacketsSplitAt16MiB() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int[] seq = {250};
    byte[] exact = payload(PacketReader.MAX_FRAME, 1);
    byte[] longer = payload(2 * PacketReader.MAX_FRAME + 5, 2);
    byte[] small = payload(10, 3);
    frame(out, exact, seq);
    frame(out, longer, seq);
    frame(out, small, seq);
    PacketReader reader = new PacketReader(trickle(out.toByteArray(), 9), 1 << 16, 64 << 20);
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
  void refusesAPacketOverTheLimitBeforeReadingIt() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    frame(out, payload(PacketReader.MAX_FRAME + 1, 4), new int[] {0});
    PacketReader reader = new PacketReader(new ByteArrayInputStream(out.toByteArray()), 64, 1 << 20);
    assertThatThrownBy(reader::next).isInstanceOf(ProtocolException.class).hasMessageContaining("over the limit");
  }

  @Test
  void refusesASequenceOutOfStep() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    frame(out, payload(5, 5), new int[] {3});
    PacketReader reader = new PacketReader(new ByteArrayInputStream(out.toByteArray()), 64, 1 << 20);
    reader.expectSequence(1);
    assertThatThrownBy(reader::next).isInstanceOf(ProtocolException.class).hasMessageContaining("out of step");
  }

  @Test
  void aPacketCutShortIsAnEof() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    frame(out, payload(100, 6), new int[] {0});
    byte[] cut = Arrays.copyOf(out.toByteArray(), 50);
    PacketReader reader = new PacketReader(new ByteArrayInputStream(cut), 64, 1 << 20);
    assertThatThrownBy(reader::next).isInstanceOf(EOFException.class).hasMessageContaining("46 of 100");
  }
}
