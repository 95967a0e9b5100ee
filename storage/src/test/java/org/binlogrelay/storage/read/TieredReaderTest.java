package org.binlogrelay.storage.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException.Reason;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.TestStores;
import org.binlogrelay.storage.testing.DirectoryArchiveTier;
import org.binlogrelay.storage.testing.DirectoryArchiveTier.Fetch;
import org.binlogrelay.storage.tier.ArchiveFetchPending;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers crossing from archived files into local ones, on the fixture binlogs of every flavour:
 * what they hand out is compared with a reader of a store that holds every file locally.
 */
class TieredReaderTest {
  @TempDir Path dir;

  /** A store with all of {@code source}, settled; and one whose first files are archived only. */
  private record Pair(BinlogStore local, BinlogStore store, DirectoryArchiveTier tier)
      implements AutoCloseable {
    @Override
    public void close() throws IOException {
      try (local;
          store) {
        // closes both
      }
    }
  }

  private Pair pair(Path root, SourceFiles source, int archived, int purged) throws Exception {
    BinlogStore local = TestStores.filled(root.resolve("local"), source);
    BinlogStore store = null;
    try {
      TestStores.settle(local);
      store = TestStores.filled(root.resolve("store"), source);
      TestStores.settle(store);
      DirectoryArchiveTier tier =
          DirectoryArchiveTier.of(root.resolve("tier"), store, source.files.subList(0, archived));
      store.removeFilesBefore(source.files.get(purged));
      return new Pair(local, store, tier);
    } catch (Exception e) {
      local.close();
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  private static Collected read(
      BinlogSource source, Position start, ReaderOptions options, boolean zeroCopy)
      throws IOException {
    try (BinlogReader reader = BinlogReader.open(source, start, options)) {
      Collected c = Collected.drain(reader, zeroCopy);
      c.changes.add(new FileChange("end", reader.position().toString()));
      return c;
    }
  }

  private static void assertSame(
      Collected tiered, Collected local, SourceFiles source, String what) {
    for (String f : source.files) {
      assertThat(tiered.of(f)).as(what + ": bytes of " + f).isEqualTo(local.of(f));
    }
    assertThat(tiered.changes).as(what + ": file changes and end").isEqualTo(local.changes);
  }

  @Test
  void readsAcrossArchiveAndStoreTheBytesOfAllLocalFiles() throws Exception {
    int run = 0;
    for (SourceFiles source : SourceFiles.all()) {
      for (int[] split : new int[][] {{2, 2}, {1, 1}, {2, 1}}) {
        try (Pair p = pair(dir.resolve("r" + run++), source, split[0], split[1])) {
          TieredBinlog tiered = new TieredBinlog(p.store(), p.tier());
          List<Position> starts = new ArrayList<>();
          starts.add(Position.startOf(source.files.get(0)));
          List<Long> inSecond = new ArrayList<>(source.eventStarts(source.files.get(1)));
          starts.add(new Position(source.files.get(1), inSecond.get(inSecond.size() / 2)));
          for (Position start : starts) {
            for (int batchBytes : new int[] {200, ReaderOptions.DEFAULT_MAX_BATCH_BYTES}) {
              for (boolean zeroCopy : new boolean[] {true, false}) {
                String what =
                    source.directory
                        + " archived "
                        + split[0]
                        + " purged "
                        + split[1]
                        + " from "
                        + start
                        + " batch "
                        + batchBytes
                        + (zeroCopy ? " zero-copy" : "");
                ReaderOptions options = ReaderOptions.defaults().withMaxBatchBytes(batchBytes);
                assertSame(
                    read(tiered, start, options, zeroCopy),
                    read(p.local(), start, options, zeroCopy),
                    source,
                    what);
              }
            }
          }
          assertThat(p.tier().pins(source.files.get(0))).as("no pin left").isZero();
        }
      }
    }
  }

  @Test
  void aPendingFetchAtAFileChangeIsCaughtUpThenResumes() throws Exception {
    for (SourceFiles source : List.of(SourceFiles.mysql(), SourceFiles.mariadb())) {
      List<String> f = source.files;
      try (Pair p = pair(dir.resolve(source.directory), source, 2, 2)) {
        TieredBinlog tiered = new TieredBinlog(p.store(), p.tier(), 0);
        Collected expected =
            read(p.local(), Position.startOf(f.get(0)), ReaderOptions.defaults(), false);
        try (BinlogReader reader =
            BinlogReader.open(tiered, Position.startOf(f.get(0)), ReaderOptions.defaults())) {
          p.tier().fetchMode(Fetch.DELAYED);
          Collected c = Collected.drain(reader, false);
          Position endOfFirst = new Position(f.get(0), source.bytes(f.get(0)).length);
          assertThat(reader.position()).isEqualTo(endOfFirst);
          assertThat(c.changes).isEmpty();
          assertThat(p.tier().fetchPending(f.get(1))).isTrue();
          CompletableFuture<Void> readable = reader.whenReadable();
          assertThat(readable).isNotDone();
          assertThat(reader.poll()).isEqualTo(new CaughtUp(endOfFirst));
          assertThat(p.tier().downloads())
              .as("one download per file")
              .containsExactly(f.get(0), f.get(1));

          p.tier().completeFetch(f.get(1));
          assertThat(readable).isCompleted();
          assertThat(reader.poll()).isEqualTo(new FileChange(f.get(0), f.get(1)));
          while (c.take(reader.poll())) {
            // read on into the local file
          }
          c.changes.add(0, new FileChange(f.get(0), f.get(1)));
          c.changes.add(new FileChange("end", reader.position().toString()));
          assertSame(c, expected, source, source.directory);
        }
      }
    }
  }

  @Test
  void aReaderStartingInAFileBeingFetchedOpensOnceItIsThereAndItsNextIsPrefetched()
      throws Exception {
    SourceFiles source = SourceFiles.mariadb118();
    List<String> f = source.files;
    try (Pair p = pair(dir, source, 2, 2)) {
      TieredBinlog tiered = new TieredBinlog(p.store(), p.tier());
      p.tier().fetchMode(Fetch.DELAYED);
      Position start = Position.startOf(f.get(0));
      assertThatThrownBy(() -> BinlogReader.open(tiered, start, ReaderOptions.defaults()))
          .isInstanceOf(ArchiveFetchPending.class);
      p.tier().completeFetch(f.get(0));
      try (BinlogReader reader = BinlogReader.open(tiered, start, ReaderOptions.defaults())) {
        assertThat(p.tier().downloads()).as("prefetched").containsExactly(f.get(0), f.get(1));
        p.tier().completeFetch(f.get(1));
        Collected c = Collected.drain(reader, true);
        c.changes.add(new FileChange("end", reader.position().toString()));
        assertSame(c, read(p.local(), start, ReaderOptions.defaults(), true), source, "prefetched");
        assertThat(p.tier().pins(f.get(0))).as("the finished file's pin").isZero();
        assertThat(p.tier().pins(f.get(1))).isZero();
      }
    }
  }

  @Test
  void overAnEmptyStoreAReaderReadsTheArchiveToItsEndAndWaitsForTheStore() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    List<String> f = source.files;
    try (Pair p = pair(dir.resolve("pair"), source, 2, 2);
        BinlogStore empty =
            BinlogStore.open(TestStores.config(dir.resolve("empty"), source.flavor).build())) {
      TieredBinlog tiered = new TieredBinlog(empty, p.tier());
      Position start = Position.startOf(f.get(0));
      Collected expected = read(p.local(), start, ReaderOptions.defaults(), false);
      try (BinlogReader reader = BinlogReader.open(tiered, start, ReaderOptions.defaults())) {
        Collected c = Collected.drain(reader, false);
        Position archiveEnd = new Position(f.get(1), source.bytes(f.get(1)).length);
        assertThat(reader.position()).isEqualTo(archiveEnd);
        assertThat(c.changes).containsExactly(new FileChange(f.get(0), f.get(1)));
        for (String name : f.subList(0, 2)) {
          assertThat(c.of(name)).as(name).isEqualTo(expected.of(name));
        }
        assertThat(reader.whenReadable()).as("waits for the store's first file").isNotDone();
      }
    }
  }

  @Test
  void aFailedFetchIsAClearReadError() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<String> f = source.files;
    try (Pair p = pair(dir, source, 2, 2)) {
      TieredBinlog tiered = new TieredBinlog(p.store(), p.tier(), 0);
      try (BinlogReader reader =
          BinlogReader.open(
              tiered, Position.startOf(f.get(0)), ReaderOptions.defaults().withName("replica-7"))) {
        p.tier().fetchMode(Fetch.DELAYED);
        Collected.drain(reader, false);
        CompletableFuture<Void> readable = reader.whenReadable();
        p.tier().failFetch(f.get(1), new IOException("connection refused (test)"));
        assertThat(readable)
            .as("completes, so that the stream polls and sees the error")
            .isCompleted();
        assertThatThrownBy(reader::poll)
            .isInstanceOfSatisfying(
                BinlogReadException.class, e -> assertThat(e.reason()).isEqualTo(Reason.REMOVED))
            .hasMessageContaining(
                "replica-7 finished "
                    + f.get(0)
                    + ", but fetching the next file, "
                    + f.get(1)
                    + ", from the archive failed")
            .hasMessageContaining("connection refused (test)")
            .hasRootCauseMessage("connection refused (test)");
      }
      // failing at once: the error at once
      p.tier().fetchMode(Fetch.FAILING);
      try (BinlogReader reader =
          BinlogReader.open(tiered, Position.startOf(f.get(0)), ReaderOptions.defaults())) {
        assertThatThrownBy(() -> Collected.drain(reader, false))
            .isInstanceOf(BinlogReadException.class)
            .hasMessageContaining("from the archive failed")
            .hasMessageContaining("refuses to give " + f.get(1));
        assertThat(reader.position())
            .isEqualTo(new Position(f.get(0), source.bytes(f.get(0)).length));
      }
    }
  }
}
