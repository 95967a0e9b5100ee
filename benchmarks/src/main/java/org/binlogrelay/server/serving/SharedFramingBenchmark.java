package org.binlogrelay.server.serving;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The event loop's framing work for one batch of caught-up replicas: a 256 KiB batch of events of
 * {@code eventBytes} each, for {@code clients} replicas.
 *
 * <ul>
 *   <li>{@code perClient}: each replica frames its own copy (header, OK marker, event copied, as
 *       {@code BatchWriter}'s copy runs do), as with {@code --serving-shared-batches=off};
 *   <li>{@code shared}: the batch is framed once per distinct next sequence id ({@code sequences})
 *       and each replica gets a retained duplicate ({@code TailGroup}).
 * </ul>
 *
 * Framing only: the read of the batch (once per replica without sharing) and the socket writes are
 * not in it. Not thread-safe: JMH runs one thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class SharedFramingBenchmark {
  private static final int BATCH_BYTES = 256 << 10;

  @Param({"10", "100", "500"})
  public int clients;

  @Param({"300", "1000"})
  public int eventBytes;

  /** Distinct next sequence ids among the replicas (shared framing only). */
  @Param({"1", "8"})
  public int sequences;

  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private ByteBuffer batch;
  private int[] sizes;
  private int capacity;

  @Setup
  public void setUp() {
    int events = BATCH_BYTES / eventBytes;
    sizes = new int[events];
    batch = ByteBuffer.allocateDirect(events * eventBytes);
    for (int i = 0; i < events; i++) {
      sizes[i] = eventBytes;
      batch.put(i * eventBytes + 4, (byte) 30); // WRITE_ROWS
    }
    capacity = events * eventBytes + events * (PacketSequence.HEADER + 1);
  }

  @Benchmark
  public void perClient(Blackhole hole) {
    for (int c = 0; c < clients; c++) {
      ByteBuf out = frame(c & 0xff);
      hole.consume(out.writerIndex());
      out.release();
    }
  }

  @Benchmark
  public void shared(Blackhole hole) {
    ByteBuf[] framed = new ByteBuf[sequences];
    for (int s = 0; s < sequences; s++) {
      framed[s] = frame(s);
    }
    for (int c = 0; c < clients; c++) {
      ByteBuf mine = framed[c % sequences].retainedDuplicate();
      hole.consume(mine.readableBytes());
      mine.release();
    }
    for (ByteBuf f : framed) {
      f.release();
    }
  }

  private ByteBuf frame(int first) {
    ByteBuf out = alloc.directBuffer(capacity, capacity);
    ByteBuffer dst = out.nioBuffer(0, capacity).order(ByteOrder.LITTLE_ENDIAN);
    PacketSequence sequence = new PacketSequence(first);
    int w = 0;
    int at = 0;
    for (int size : sizes) {
      w = sequence.event(dst, w, batch, at, size);
      at += size;
    }
    out.writerIndex(w);
    return out;
  }
}
