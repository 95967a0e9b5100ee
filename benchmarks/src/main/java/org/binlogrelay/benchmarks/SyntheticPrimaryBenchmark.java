package org.binlogrelay.benchmarks;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The generator alone, with the events going to a blackhole instead of a store: the part of each
 * {@link AppendBenchmark} transaction that is not the store's. Its cost per transaction should be a
 * small fraction of the append's.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class SyntheticPrimaryBenchmark {
  @Param({"200", "2048", "65536"})
  public int transactionBytes;

  @Param({"268435456"})
  public long maxFileBytes;

  private SyntheticPrimary primary;
  private SyntheticPrimary.Sink sink;

  @Setup(Level.Trial)
  public void start(Blackhole blackhole) throws IOException {
    primary = new SyntheticPrimary(transactionBytes, maxFileBytes);
    sink = blackhole::consume;
    primary.connect(sink);
  }

  @Benchmark
  public long generateTransaction() throws IOException {
    return primary.transaction(sink);
  }
}
