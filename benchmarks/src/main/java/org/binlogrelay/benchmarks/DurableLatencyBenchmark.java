package org.binlogrelay.benchmarks;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.storage.Position;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Latency from appending one transaction to its being durable, with nothing else in flight: the
 * relay's equivalent of a commit with {@code sync_binlog=1} on an idle server (one transaction per
 * force, no group commit). The distribution (p50, p99) is to be read next to the raw fdatasync
 * latency of the same disk.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class DurableLatencyBenchmark {
  @Param({"every-transaction"})
  public String policy;

  @Param({"200", "65536"})
  public int transactionBytes;

  @Param({"268435456"})
  public long maxFileBytes;

  private ReplicatingStore target;

  @Setup(Level.Trial)
  public void start() throws IOException {
    target = ReplicatingStore.start("durable-latency", policy, transactionBytes, maxFileBytes);
  }

  @Benchmark
  public Position appendUntilDurable()
      throws IOException, InterruptedException, ExecutionException {
    target.transaction();
    return target.store().whenDurable(target.end()).get();
  }

  @TearDown(Level.Iteration)
  public void trim() throws IOException {
    target.trim();
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException {
    target.close();
  }
}
