package org.binlogrelay.server.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.Time;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the relay does for its latency metric at every hand-over to every replica: {@link
 * RelayLatency#sent}, two searches of a full {@link BoundaryLog} (65,536 boundaries) and a timer
 * update. A caught-up replica is handed the newest transaction ({@code from} the boundary before
 * it, {@code to} the newest), so each search runs the whole depth of the ring.
 *
 * <ul>
 *   <li>{@code files}: how many binlog files the ring's boundaries span (1: all in the current
 *       file, where positions compare by offset; 2: a rotation halfway, so the first steps of a
 *       search compare two files' names; 64: a file every 1,024 transactions);
 *   <li>{@code handOver}: one event-loop thread; {@code handOverFromEightLoops}: 8 threads at once
 *       on one ring and one timer, as the relay's 8 replica I/O threads (the ring's monitor is
 *       shared; on a machine with fewer cores the threads also share them).
 * </ul>
 *
 * Not the store's write of a boundary ({@link BoundaryLog#record}, once per transaction on the
 * upstream thread) nor the socket write.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class HandOverLatencyBenchmark {
  private static final int TRANSACTION_BYTES = 1_000;

  @Param({"1", "2", "64"})
  public int files;

  private BoundaryLog ring;
  private RelayLatency latency;
  private Position beforeNewest;
  private Position newest;

  @Setup
  public void setUp() {
    ring = new BoundaryLog(Time.SYSTEM);
    int capacity = BoundaryLog.DEFAULT_CAPACITY;
    int perFile = capacity / files;
    long now = System.nanoTime();
    Position end = null;
    for (int i = 0; i < capacity; i++) {
      String file = String.format("binlog.%06d", 1 + i / perFile);
      long offset = 4 + (long) (1 + i % perFile) * TRANSACTION_BYTES;
      beforeNewest = end;
      end = new Position(file, offset);
      ring.record(end, now, 1_700_000_000L);
    }
    newest = end;
    latency = new RelayLatency(ring, Time.SYSTEM, new SimpleMeterRegistry());
  }

  @Benchmark
  public void handOver() {
    latency.sent(beforeNewest, newest);
  }

  @Benchmark
  @Threads(8)
  public void handOverFromEightLoops() {
    latency.sent(beforeNewest, newest);
  }

  /** The two searches alone, for comparison with the timer's share. */
  @Benchmark
  public void searchesOnly(Blackhole hole) {
    hole.consume(ring.firstAfter(beforeNewest));
    hole.consume(ring.atOrBefore(newest));
  }
}
