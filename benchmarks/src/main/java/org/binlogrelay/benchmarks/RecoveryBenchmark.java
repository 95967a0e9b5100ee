package org.binlogrelay.benchmarks;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.RecoveryReport;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.SyncPolicy;
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
 * Start-up time: {@code BinlogStore.open} (recovery included) and {@code close} of a store holding
 * 1 GiB or 10 GiB ({@link GeneratedStore#RECOVERY_1G}, {@link GeneratedStore#RECOVERY_10G}: 256 MiB
 * files, then a 64 MiB open tail). Recovery reads one metadata file per closed file and the tail
 * from its last checkpoint, so the two sizes should open in about the same time:
 *
 * <ul>
 *   <li>{@code clean}: closed cleanly, the checkpoint at the end of the tail.
 *   <li>{@code crash}: the last checkpoint 8 MiB before the end (the most the default 8 MiB
 *       checkpoint rule leaves), as after a crash; those 8 MiB are scanned.
 *   <li>{@code no-tail-metadata}: the tail's metadata deleted, so the whole 64 MiB tail is scanned
 *       (for contrast: what every open would cost without checkpoints).
 * </ul>
 *
 * With {@code cold} the store's files are dropped from the page cache before each open (as after a
 * reboot); with {@code warm} they are cached (as after a process restart). One open per measurement
 * (single shot); the setup before each one (restoring the tail's metadata, dropping the cache) is
 * not measured. The first run generates the stores (minutes for 10 GiB); later runs reuse them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(2)
public class RecoveryBenchmark {
  /** Which generated store: recovery-1g or recovery-10g. */
  @Param({"recovery-1g", "recovery-10g"})
  public String store;

  /** clean, crash or no-tail-metadata. */
  @Param({"clean", "crash", "no-tail-metadata"})
  public String tail;

  /** warm or cold page cache. */
  @Param({"warm", "cold"})
  public String cache;

  private GeneratedStore generated;
  private GeneratedStore.Tail tailState;
  private StoreConfig config;
  private RecoveryReport last;

  @Setup(Level.Trial)
  public void prepare() throws IOException {
    generated = GeneratedStore.byParam(store);
    switch (tail) {
      case "clean":
        tailState = GeneratedStore.Tail.CLEAN;
        break;
      case "crash":
        tailState = GeneratedStore.Tail.CRASH;
        break;
      case "no-tail-metadata":
        tailState = GeneratedStore.Tail.NO_METADATA;
        break;
      default:
        throw new IllegalArgumentException(
            "tail must be clean, crash or no-tail-metadata, not " + tail);
    }
    if (!cache.equals("warm") && !cache.equals("cold")) {
      throw new IllegalArgumentException("cache must be warm or cold, not " + cache);
    }
    config =
        StoreConfig.builder(generated.directory(), GtidFlavor.MYSQL)
            .syncPolicy(SyncPolicy.off())
            .build();
  }

  @Setup(Level.Invocation)
  public void restore() throws IOException {
    generated.restoreTail(tailState);
    if (cache.equals("cold")) {
      generated.evictFromPageCache();
    }
  }

  @Benchmark
  public RecoveryReport openAndClose() throws IOException {
    try (BinlogStore s = BinlogStore.open(config)) {
      last = s.recoveryReport();
      return last;
    }
  }

  @TearDown(Level.Trial)
  public void report() throws IOException {
    if (last != null) {
      System.out.printf(
          "%n%s (%s files, %s bytes), tail %s: last open scanned %d file(s), %d bytes, %s, %s%n",
          store,
          generated.fact("files"),
          generated.fact("bytes"),
          tail,
          last.filesScanned(),
          last.bytesScanned(),
          last.clean() ? "nothing repaired" : last.actions() + " " + last.truncations(),
          last.end());
    }
    generated.restoreTail(GeneratedStore.Tail.CLEAN);
  }
}
