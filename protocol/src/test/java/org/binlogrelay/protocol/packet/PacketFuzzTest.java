package org.binlogrelay.protocol.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.binlogrelay.protocol.testing.AllocationBudget;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target for the packet layer (docs/fuzzing.md): {@link PacketDecoder} and {@link
 * PacketAggregator} in a Netty pipeline, fed a fuzzed byte stream in fuzzed chunks. The input:
 *
 * <pre>
 *   u8    limit selector: the decoder's and aggregator's maxPayloadBytes, one of {@link #LIMITS}
 *   ops   until the input ends:
 *           op & 3 == 3, at most 3 times: a whole 0xFFFFFF-byte frame (header with sequence id = next byte,
 *                                         payload a shared pattern, so continued packets can be reached)
 *           otherwise:  a chunk of the next (next byte + 1) input bytes, written as one read
 * </pre>
 *
 * The contract checked against an independent model of the framing: the packets that come out are
 * exactly the frames the stream holds, joined where continued (sequence ids, lengths and CRC32 of
 * the content); the only exceptions are {@link TooLongFrameException} (a frame or logical packet
 * over the limit: the decoder then discards the rest of the stream) and {@link
 * CorruptedFrameException} (a sequence gap inside a continued packet), each exactly when the model
 * says; every buffer is released, including a partial packet when the channel closes; and what the
 * pipeline allocates is bounded by the bytes written, not by any length header.
 */
class PacketFuzzTest {
  static final int[] LIMITS = {
    0, 7, 1000, 0xFFFFFE, 0xFFFFFF, 2 * 0xFFFFFF, 2 * 0xFFFFFF + 5, 1 << 30
  };
  private static final int FULL = MysqlPacket.MAX_FRAME_PAYLOAD;
  private static final byte[] BIG = pattern(FULL);
  private static final int MAX_BIG_FRAMES = 3;

  static Stream<Arguments> frames() {
    byte[] query = "SELECT @@version_comment LIMIT 1".getBytes(StandardCharsets.US_ASCII);
    byte[] queryPacket = new byte[query.length + 1];
    queryPacket[0] = 3;
    System.arraycopy(query, 0, queryPacket, 1, query.length);
    List<byte[]> seeds = new ArrayList<>();
    // a COM_QUERY and a COM_QUIT, one chunk each, limit 1000
    seeds.add(
        input(2, chunk(Frames.frame(0, queryPacket)), chunk(Frames.frame(0, new byte[] {1}))));
    // the same bytes split in two chunks mid-header
    byte[] both = concat(Frames.frame(0, queryPacket), Frames.frame(1, new byte[0]));
    seeds.add(
        input(4, chunk(Arrays.copyOf(both, 2)), chunk(Arrays.copyOfRange(both, 2, both.length))));
    // a logical packet of 0xFFFFFF + 5 bytes: a full frame, then its 5-byte continuation
    seeds.add(input(6, bigFrame(9), chunk(Frames.frame(10, new byte[] {1, 2, 3, 4, 5}))));
    // a continued packet that ends with an empty frame, then a sequence gap
    seeds.add(
        input(
            7,
            bigFrame(0),
            chunk(Frames.frame(1, new byte[0])),
            bigFrame(5),
            chunk(Frames.frame(7, new byte[3]))));
    // a header over the limit
    seeds.add(input(1, chunk(new byte[] {8, 0, 0, 0, 1, 2})));
    return seeds.stream().map(s -> arguments((Object) s));
  }

  @MethodSource
  @FuzzTest
  void frames(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int limit = LIMITS[input[0] & 7];
    List<byte[]> segments =
        new ArrayList<>(); // the logical stream; null stands for a shared BIG payload
    int big = 0;
    for (int at = 1; at < input.length; ) {
      int op = input[at++] & 0xff;
      if ((op & 3) == 3 && big < MAX_BIG_FRAMES && at < input.length) {
        segments.add(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, input[at++]});
        segments.add(null);
        big++;
      } else {
        int n = at < input.length ? Math.min((input[at++] & 0xff) + 1, input.length - at) : 0;
        segments.add(Arrays.copyOfRange(input, at, at + n));
        at += n;
      }
    }
    Model expected = Model.of(new LogicalStream(segments), limit);
    long written = segments.stream().mapToLong(s -> s == null ? FULL : s.length).sum();
    AllocationBudget.of(1 << 20, 3, written)
        .check("the packet pipeline", () -> feed(limit, segments, expected));
  }

  /**
   * Writes each chunk, and each big frame's header with its payload, as one read. Empty chunks are
   * not written: a channel never reads 0 bytes, and Unpooled's shared empty buffer ignores
   * release(), which the leak check below would take for a leak (crash-0ead23c1... in the inputs
   * was that, a fault of this test).
   */
  private static List<ByteBuf> writes(List<byte[]> segments) {
    List<ByteBuf> writes = new ArrayList<>();
    for (int i = 0; i < segments.size(); i++) {
      if (i + 1 < segments.size() && segments.get(i + 1) == null) {
        writes.add(
            Unpooled.wrappedBuffer(
                Unpooled.wrappedBuffer(segments.get(i)), Unpooled.wrappedBuffer(BIG)));
        i++;
      } else if (segments.get(i).length > 0) {
        writes.add(Unpooled.wrappedBuffer(segments.get(i)));
      }
    }
    return writes;
  }

  private static void feed(int limit, List<byte[]> segments, Model expected) {
    List<ByteBuf> writes = writes(segments);
    TrackingAllocator alloc = new TrackingAllocator();
    EmbeddedChannel ch =
        TrackingAllocator.channel(alloc, new PacketDecoder(limit), new PacketAggregator(limit));
    List<Class<?>> thrown = new ArrayList<>();
    for (ByteBuf write : writes) {
      try {
        ch.writeInbound(write.retain());
      } catch (TooLongFrameException | CorruptedFrameException e) {
        thrown.add(e.getClass());
      }
    }
    List<MysqlPacket> out = new ArrayList<>();
    for (Object o = ch.readInbound(); o != null; o = ch.readInbound()) {
      out.add((MysqlPacket) o);
    }
    ch.finishAndReleaseAll();
    try {
      assertThat(out).as("packets out").hasSize(expected.packets.size());
      for (int i = 0; i < out.size(); i++) {
        MysqlPacket p = out.get(i);
        Model.Packet e = expected.packets.get(i);
        assertThat(p.sequenceId()).as("sequence id of packet %d", i).isEqualTo(e.sequenceId);
        assertThat((long) p.payload().readableBytes())
            .as("length of packet %d", i)
            .isEqualTo(e.length);
        assertThat(crc(p.payload())).as("content of packet %d", i).isEqualTo(e.crc);
        assertThat((long) p.payload().readableBytes()).isLessThanOrEqualTo(limit);
      }
      assertThat(thrown.isEmpty())
          .as("exceptions %s, model errors %s", thrown, expected.errors)
          .isEqualTo(expected.errors.isEmpty());
      assertThat(expected.errors).as("exceptions thrown").containsAll(thrown);
    } finally {
      out.forEach(MysqlPacket::release);
      for (ByteBuf write : writes) {
        write.release();
      }
    }
    for (ByteBuf write : writes) {
      assertThat(write.refCnt()).as("input buffer still referenced: leak").isZero();
    }
    alloc.assertAllReleased();
  }

  /** The logical byte stream: chunks of input and shared 0xFFFFFF-byte payloads. */
  private static final class LogicalStream {
    private final List<byte[]> segments;
    private final long[] starts;
    private final long length;

    LogicalStream(List<byte[]> segments) {
      this.segments = segments;
      this.starts = new long[segments.size()];
      long at = 0;
      for (int i = 0; i < segments.size(); i++) {
        starts[i] = at;
        at += segments.get(i) == null ? FULL : segments.get(i).length;
      }
      this.length = at;
    }

    int at(long i) {
      int s = segment(i);
      byte[] b = segments.get(s);
      int off = (int) (i - starts[s]);
      return (b == null ? BIG[off] : b[off]) & 0xff;
    }

    private int segment(long i) {
      int lo = 0;
      int hi = starts.length - 1;
      while (lo < hi) {
        int mid = (lo + hi + 1) >>> 1;
        if (starts[mid] <= i) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      return lo; // the last segment starting at or before i: empty ones before it share its start
    }
  }

  /**
   * What the decoder and aggregator must do with a stream, written from the wire format alone:
   * frames cut at their headers; a frame over the limit (or a continued one when the limit is below
   * 0xFFFFFF) ends the stream with TooLongFrameException; a continued packet joins frames while the
   * sequence ids follow, and a gap (CorruptedFrameException) or a total over the limit
   * (TooLongFrameException) drops the partial packet.
   */
  private static final class Model {
    record Packet(int sequenceId, long length, long crc) {}

    final List<Packet> packets = new ArrayList<>();
    final List<Class<?>> errors = new ArrayList<>();

    static Model of(LogicalStream s, int limit) {
      Model m = new Model();
      long pos = 0;
      List<long[]> pending = null; // frames of the open continued packet: {start, length}
      int first = 0;
      int expectedSeq = 0;
      long total = 0;
      while (s.length - pos >= MysqlPacket.HEADER_SIZE) {
        int length = s.at(pos) | s.at(pos + 1) << 8 | s.at(pos + 2) << 16;
        int seq = s.at(pos + 3);
        if (length > limit || (length == FULL && limit < FULL)) {
          m.errors.add(TooLongFrameException.class);
          break;
        }
        if (s.length - pos - MysqlPacket.HEADER_SIZE < length) {
          break;
        }
        long start = pos + MysqlPacket.HEADER_SIZE;
        pos = start + length;
        boolean continued = length == FULL;
        if (pending == null) {
          if (!continued) {
            CRC32Joined one = new CRC32Joined();
            one.add(s, start, length);
            m.packets.add(new Packet(seq, length, one.value()));
            continue;
          }
          pending = new ArrayList<>();
          first = seq;
          total = 0;
        } else {
          if (seq != expectedSeq) {
            m.errors.add(CorruptedFrameException.class);
            pending = null;
            // the frame that broke the sequence is dropped with the partial packet
            continue;
          }
          if (total + length > limit) {
            m.errors.add(TooLongFrameException.class);
            pending = null;
            continue;
          }
        }
        pending.add(new long[] {start, length});
        total += length;
        expectedSeq = (seq + 1) & 0xff;
        if (!continued) {
          CRC32Joined joined = new CRC32Joined();
          for (long[] f : pending) {
            joined.add(s, f[0], f[1]);
          }
          m.packets.add(new Packet(first, total, joined.value()));
          pending = null;
        }
      }
      return m;
    }
  }

  /** The CRC32 of several ranges of a stream taken one after another. */
  private static final class CRC32Joined {
    private final CRC32 crc = new CRC32();

    void add(LogicalStream s, long from, long n) {
      long i = from;
      while (i < from + n) {
        int seg = s.segment(i);
        byte[] b = s.segments.get(seg) == null ? BIG : s.segments.get(seg);
        int off = (int) (i - s.starts[seg]);
        int take = (int) Math.min(b.length - off, from + n - i);
        crc.update(b, off, take);
        i += take;
      }
    }

    long value() {
      return crc.getValue();
    }
  }

  private static long crc(ByteBuf payload) {
    CRC32 crc = new CRC32();
    for (ByteBuffer b : payload.nioBuffers()) {
      crc.update(b);
    }
    return crc.getValue();
  }

  private static byte[] pattern(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + (i >>> 8));
    }
    return b;
  }

  // ---- seed building ----

  private static byte[] input(int limitSelector, byte[]... ops) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(limitSelector);
    for (byte[] op : ops) {
      out.writeBytes(op);
    }
    return out.toByteArray();
  }

  /** Chunk ops for {@code bytes}, at most 256 bytes each. */
  private static byte[] chunk(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int at = 0; at < bytes.length; at += 256) {
      int n = Math.min(256, bytes.length - at);
      out.write(0);
      out.write(n - 1);
      out.write(bytes, at, n);
    }
    return out.toByteArray();
  }

  private static byte[] bigFrame(int seq) {
    return new byte[] {3, (byte) seq};
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
