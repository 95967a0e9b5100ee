package org.binlogrelay.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.SyncPolicy;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Sustained append throughput of one writer per sync policy and transaction size: how many
 * transactions per second a relay can take from its primary while keeping its durability promise.
 *
 * <p>One operation is one transaction (GTID, BEGIN, WRITE_ROWS, XID) handed to {@code
 * BinlogStore.append}, so the score is transactions/s; the {@code bytes} counter is the bytes/s
 * written (rotations included), and {@code cpuNanos} the CPU the JVM used per second (divided by
 * the score: CPU per transaction).
 *
 * <p>The store's writer never waits for a force (a background syncer advances the durable
 * boundary), so an unchecked writer would measure the page cache and leave gigabytes not yet
 * durable. Like a relay that acknowledges only durable transactions, this writer lets at most
 * {@code maxNotDurableBytes} be written but not durable: before each transaction it waits for the
 * end of the transaction that many bytes back to be durable (the {@code durabilityWaits} counter
 * says how often it had to). At most that much is not durable at the end of an iteration, so the
 * score is the durable throughput to within {@code maxNotDurableBytes} per iteration. With {@code
 * off} the writer never waits: the score is the page-cache write rate (what {@code sync_binlog=0}
 * promises), with forces only at checkpoints (8 MiB) and rotations.
 *
 * <p>Between iterations (not measured) everything is forced and the closed files are deleted.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class AppendBenchmark {
  /** The sync policy, in the configuration form ({@link SyncPolicy#parse}). */
  @Param({"every-transaction", "every-100-transactions", "every-10ms", "off"})
  public String policy;

  /** Bytes per transaction, GTID to XID. */
  @Param({"200", "2048", "65536"})
  public int transactionBytes;

  /** The primary's max_binlog_size. */
  @Param({"268435456"})
  public long maxFileBytes;

  /**
   * How far the writer may run ahead of the durable boundary; 0 never waits (ignored for {@code
   * off}).
   */
  @Param({"8388608"})
  public long maxNotDurableBytes;

  private static final long WAIT_LIMIT_SECONDS = 30;
  private static final int CPU_SAMPLE = 1024;
  private static final OperatingSystemMXBean CPU =
      ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);

  private ReplicatingStore target;
  private Position[] window;
  private int next;

  /** Per-iteration counters, reported by JMH next to the score (as rates). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Written {
    /** Bytes appended: the bytes/s written. */
    public long bytes;

    /** Times the writer had to wait for the durable boundary. */
    public long durabilityWaits;

    /**
     * CPU time of the whole JVM (writer, syncer, GC) in this iteration, sampled every {@value
     * #CPU_SAMPLE} transactions: reported as CPU nanoseconds per second, i.e. cores busy times 1e9.
     * Divided by the score it is the CPU cost per transaction, which a loaded machine disturbs less
     * than the throughput.
     */
    public long cpuNanos;

    private long cpuAtStart;
    private int untilSample;

    @Setup(Level.Iteration)
    public void reset() {
      bytes = 0;
      durabilityWaits = 0;
      cpuNanos = 0;
      cpuAtStart = CPU.getProcessCpuTime();
      untilSample = CPU_SAMPLE;
    }

    void sampleCpu() {
      if (--untilSample == 0) {
        cpuNanos = CPU.getProcessCpuTime() - cpuAtStart;
        untilSample = CPU_SAMPLE;
      }
    }
  }

  @Setup(Level.Trial)
  public void start() throws IOException {
    target = ReplicatingStore.start("append", policy, transactionBytes, maxFileBytes);
    boolean waits =
        SyncPolicy.parse(policy).kind() != SyncPolicy.Kind.OFF && maxNotDurableBytes > 0;
    window = waits ? new Position[(int) Math.max(1, maxNotDurableBytes / transactionBytes)] : null;
    next = 0;
  }

  @Benchmark
  public long appendTransaction(Written written)
      throws IOException, InterruptedException, ExecutionException {
    if (window != null) {
      Position oldest = window[next];
      if (oldest != null) {
        Position durable = target.store().durableEnd();
        if (durable == null || durable.isBefore(oldest)) {
          written.durabilityWaits++;
          awaitDurable(oldest);
        }
      }
    }
    long bytes = target.transaction();
    written.bytes += bytes;
    written.sampleCpu();
    if (window != null) {
      window[next] = target.end();
      next = next + 1 == window.length ? 0 : next + 1;
    }
    return bytes;
  }

  private void awaitDurable(Position position) throws InterruptedException, ExecutionException {
    try {
      target.store().whenDurable(position).get(WAIT_LIMIT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "with "
              + policy
              + ", "
              + position
              + " was not durable after "
              + WAIT_LIMIT_SECONDS
              + " s (durable: "
              + target.store().durableEnd()
              + "); a policy that forces only at"
              + " checkpoints never catches up with a window of "
              + maxNotDurableBytes
              + " bytes: use"
              + " -p maxNotDurableBytes=0",
          e);
    }
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
