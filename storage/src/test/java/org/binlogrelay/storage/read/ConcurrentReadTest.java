package org.binlogrelay.storage.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.testing.RandomCases;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One writer appending the fixture binlogs while readers tail the store. */
class ConcurrentReadTest {
  private static final int READERS = 4;
  private static final MysqlGtidSet REPLICA =
      MysqlGtidSet.parse("3b1e7c52-0000-4000-8000-00000000f001:2-7:13:19-20:mytag:2");
  private static final Map<Long, MariadbGtid> WAIT_FOR =
      Map.of(0L, MariadbGtid.parse("0-1-14"), 2L, MariadbGtid.parse("2-1-3"));

  @TempDir Path dir;

  @Test
  void readersSeeOnlyWholeTransactionsWhileAWriterAppends() {
    for (SourceFiles source : SourceFiles.all()) {
      RandomCases.check(
          "concurrent readers " + source.directory,
          3,
          rnd -> {
            try {
              runOnce(source, rnd, Files.createTempDirectory(dir, "store"));
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
    }
  }

  private void runOnce(SourceFiles source, Random rnd, Path storeDir) throws Exception {
    List<BinlogEvent> stream = source.dumpStream();
    Position end = new Position(source.lastFile(), source.bytes(source.lastFile()).length);
    Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    try (BinlogStore store = BinlogStore.open(TestStores.config(storeDir, source.flavor).build())) {
      store.startStream();
      TestStores.append(
          store, stream.subList(0, 2)); // ROTATE, FORMAT_DESCRIPTION: the first file exists
      List<Thread> readers = new ArrayList<>();
      List<Collected> collected = new ArrayList<>();
      for (int i = 0; i < READERS; i++) {
        int batch = 1 + rnd.nextInt(4000);
        Collected c = new Collected(rnd.nextBoolean());
        boolean blocking = i % 2 == 0;
        collected.add(c);
        Thread t =
            new Thread(
                () -> {
                  try (BinlogReader reader =
                      BinlogReader.open(
                          store,
                          Position.startOf(source.files.get(0)),
                          ReaderOptions.defaults().withMaxBatchBytes(batch))) {
                    while (!reader.position().equals(end)) {
                      ReadResult r = blocking ? reader.read(Duration.ofSeconds(20)) : reader.poll();
                      if (r instanceof CaughtUp up) {
                        assertThat(source.boundaries(up.position().file()))
                            .as("caught up at " + up.position())
                            .contains(up.position().offset());
                        reader.whenReadable().get(20, TimeUnit.SECONDS);
                      }
                      c.take(r);
                    }
                  } catch (Throwable e) {
                    errors.add(e);
                  }
                },
                "reader-" + i);
        t.start();
        readers.add(t);
      }
      // One more reader skips the transactions a replica has (GTID auto-position) while the files
      // grow.
      TransactionFilter filter =
          source.flavor == GtidFlavor.MYSQL
              ? new MysqlGtidFilter(REPLICA)
              : new MariadbGtidFilter(
                  WAIT_FOR, Set.of(), false, () -> (MariadbGtidSet) store.executedGtids());
      Collected filtered = new Collected(rnd.nextBoolean());
      int filteredBatch = 1 + rnd.nextInt(4000);
      Thread skipping =
          new Thread(
              () -> {
                try (BinlogReader reader =
                    BinlogReader.open(
                        store,
                        Position.startOf(source.files.get(0)),
                        ReaderOptions.defaults()
                            .withMaxBatchBytes(filteredBatch)
                            .withFilter(filter))) {
                  while (!reader.position().equals(end)) {
                    filtered.take(reader.read(Duration.ofSeconds(20)));
                  }
                } catch (Throwable e) {
                  errors.add(e);
                }
              },
              "filtered-reader");
      skipping.start();
      readers.add(skipping);
      Thread writer =
          new Thread(
              () -> {
                try {
                  for (BinlogEvent e : stream.subList(2, stream.size())) {
                    store.append(e);
                    if (rnd.nextInt(8) == 0) {
                      Thread.onSpinWait();
                    }
                  }
                } catch (Throwable e) {
                  errors.add(e);
                }
              },
              "writer");
      writer.start();
      writer.join(60_000);
      for (Thread t : readers) {
        t.join(60_000);
        assertThat(t.isAlive()).as(t.getName() + " finished").isFalse();
      }
      assertThat(errors).isEmpty();
      for (Collected c : collected) {
        for (String f : source.files) {
          byte[] expected = Arrays.copyOfRange(source.bytes(f), 4, source.bytes(f).length);
          assertThat(SourceFiles.firstDifference(c.of(f), expected, 4)).as(f).isEqualTo(-1);
        }
        BinlogReaderTest.assertBatchesEndAtBoundaries(source, c, source.directory);
      }
      FilteredReadTest.assertSent(
          source,
          filtered,
          source.flavor == GtidFlavor.MYSQL
              ? t -> REPLICA.contains((MysqlGtid) t.gtid())
              : FilteredReadTest.mariadbModel(WAIT_FOR));
    }
  }

  @Test
  void aWaitingReaderWakesAsSoonAsATransactionCompletes() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<BinlogEvent> stream = source.dumpStream();
    try (BinlogStore store = BinlogStore.open(TestStores.config(dir, source.flavor).build())) {
      store.startStream();
      SourceFiles.Tx tx = source.transactionsOf(source.files.get(0)).get(5);
      int next = 0;
      while (stream.get(next).header().logPos() <= tx.start()) {
        store.append(stream.get(next++));
      }
      try (BinlogReader polling =
              BinlogReader.open(
                  store, Position.startOf(source.files.get(0)), ReaderOptions.defaults());
          BinlogReader blocking =
              BinlogReader.open(
                  store, Position.startOf(source.files.get(0)), ReaderOptions.defaults())) {
        Collected.drain(polling, false);
        Collected.drain(blocking, false);
        CompletableFuture<Void> readable = polling.whenReadable();
        assertThat(readable).isNotDone();

        AtomicLong wokeAt = new AtomicLong();
        AtomicBoolean gotBatch = new AtomicBoolean();
        Thread waiter =
            new Thread(
                () -> {
                  try {
                    ReadResult r = blocking.read(Duration.ofSeconds(30));
                    wokeAt.set(System.nanoTime());
                    gotBatch.set(r instanceof EventBatch);
                    if (r instanceof EventBatch b) {
                      b.close();
                    }
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                });
        waiter.start();
        awaitState(waiter, Thread.State.TIMED_WAITING);

        while (stream.get(next).header().logPos() < tx.end()) {
          store.append(stream.get(next++));
        }
        assertThat(readable).as("no wake-up for part of a transaction").isNotDone();
        assertThat(waiter.getState()).isEqualTo(Thread.State.TIMED_WAITING);

        long before = System.nanoTime();
        assertThat(store.append(stream.get(next)).completedTransaction()).isTrue();
        readable.get(5, TimeUnit.SECONDS);
        waiter.join(5_000);
        assertThat(gotBatch).isTrue();
        assertThat(Duration.ofNanos(wokeAt.get() - before)).isLessThan(Duration.ofSeconds(1));
        ReadResult r = polling.poll();
        assertThat(r).isInstanceOf(EventBatch.class);
        assertThat(((EventBatch) r).endPosition()).isEqualTo(store.readableEnd());
        ((EventBatch) r).close();
      }
    }
  }

  @Test
  void aReaderWaitingOnAStoreThatClosesIsToldAtOnce() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    BinlogStore store = TestStores.filled(dir, source);
    try (BinlogReader reader =
        BinlogReader.open(store, Position.startOf(source.lastFile()), ReaderOptions.defaults())) {
      Collected.drain(reader, false);
      CompletableFuture<Throwable> outcome = new CompletableFuture<>();
      Thread waiter =
          new Thread(
              () -> {
                try {
                  reader.read(Duration.ofSeconds(60));
                  outcome.complete(null);
                } catch (Throwable e) {
                  outcome.complete(e);
                }
              });
      waiter.start();
      awaitState(waiter, Thread.State.TIMED_WAITING);
      store.close();
      assertThat(outcome.get(5, TimeUnit.SECONDS))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("stopped");
    } finally {
      store.close();
    }
  }

  private static void awaitState(Thread t, Thread.State state) throws InterruptedException {
    eventually(Duration.ofSeconds(10), t.getName() + " " + state, t::getState, s -> s == state);
  }
}
