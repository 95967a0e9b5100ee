package org.binlogrelay.benchmarks;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.SyncPolicy;
import org.binlogrelay.storage.lookup.MysqlStart;
import org.binlogrelay.storage.lookup.MysqlStartLookup;
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
 * Where a MySQL replica connecting with auto-position starts ({@link MysqlStartLookup#find}) in a
 * store of 1,000 files ({@link GeneratedStore#LOOKUP_1000}: 10 transactions of 2 KiB each). The
 * lookup walks the files' metadata newest first to the newest file whose PREVIOUS_GTIDS the
 * replica's set contains, then scans that file for the first transaction the replica lacks. The
 * replica's set:
 *
 * <ul>
 *   <li>{@code newest}: everything stored (a caught-up replica reconnecting): the last file,
 *       scanned to its end.
 *   <li>{@code middle}: up to the 5th transaction of file 500: 500 metadata sets compared, half a
 *       file scanned.
 *   <li>{@code oldest}: up to the 5th transaction of the first file: all 1,000 compared (the worst
 *       case).
 * </ul>
 *
 * The store stays open; the files are in the page cache after the first call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class LookupBenchmark {
  private static final int TRANSACTIONS_KEPT = 5;

  @Param({"newest", "middle", "oldest"})
  public String replica;

  private BinlogStore store;
  private MysqlStartLookup lookup;
  private MysqlGtidSet replicaGtids;
  private final Set<UUID> checked = Set.of(SyntheticPrimary.SOURCE);

  @Setup(Level.Trial)
  public void open() throws IOException {
    GeneratedStore generated = GeneratedStore.ensure(GeneratedStore.LOOKUP_1000);
    store =
        BinlogStore.open(
            StoreConfig.builder(generated.directory(), GtidFlavor.MYSQL)
                .syncPolicy(SyncPolicy.off())
                .build());
    lookup = new MysqlStartLookup(store);
    List<FileMetadata> files = store.files();
    int start;
    switch (replica) {
      case "newest":
        start = files.size() - 1;
        replicaGtids = (MysqlGtidSet) store.executedGtids();
        break;
      case "middle":
        start = files.size() / 2;
        replicaGtids = firstTransactionsOf(files.get(start));
        break;
      case "oldest":
        start = 0;
        replicaGtids = firstTransactionsOf(files.get(start));
        break;
      default:
        throw new IllegalArgumentException(
            "replica must be newest, middle or oldest, not " + replica);
    }
    MysqlStart found = lookup.find(replicaGtids, checked);
    String expected = files.get(start).name();
    if (!(found instanceof MysqlStart.Found f) || !f.start().file().equals(expected)) {
      throw new IllegalStateException(
          "a replica with "
              + replicaGtids
              + " should start in "
              + expected
              + " of "
              + files.size()
              + " files, the lookup says "
              + found);
    }
    System.out.printf(
        "%n%d files; replica %s starts at %s, first to send %s%n",
        files.size(),
        replica,
        ((MysqlStart.Found) found).start(),
        ((MysqlStart.Found) found).firstToSend());
  }

  /** The file's PREVIOUS_GTIDS plus its first few transactions. */
  private static MysqlGtidSet firstTransactionsOf(FileMetadata file) {
    MysqlGtidSet set = ((MysqlGtidSet) file.gtidsAtStart()).copy();
    long last = set.intervalsFor(SyntheticPrimary.SOURCE, "").get(0).end();
    set.addInterval(SyntheticPrimary.SOURCE, "", last + 1, last + TRANSACTIONS_KEPT);
    return set;
  }

  @Benchmark
  public MysqlStart find() throws IOException {
    return lookup.find(replicaGtids, checked);
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    store.close();
  }
}
