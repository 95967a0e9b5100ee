package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync policies, the durable boundary and its futures, and the readable boundary that may
 * follow it.
 */
class DurabilityTest {
  private static final long MS = 1_000_000;

  @TempDir Path dir;

  private final SourceBinlog source = SourceBinlog.mysql();

  @Test
  void whenEachPolicyWantsAForce() {
    SyncPolicy each = SyncPolicy.everyTransaction();
    SyncPolicy three = SyncPolicy.everyTransactions(3);
    SyncPolicy interval = SyncPolicy.every(Duration.ofMillis(10));
    SyncPolicy off = SyncPolicy.off();
    assertThat(each.nanosUntilDue(true, 1, 0)).isZero();
    assertThat(each.nanosUntilDue(false, 0, 0)).isEqualTo(Long.MAX_VALUE);
    assertThat(three.nanosUntilDue(true, 2, 0)).isEqualTo(Long.MAX_VALUE);
    assertThat(three.nanosUntilDue(true, 3, 0)).isZero();
    assertThat(interval.nanosUntilDue(true, 1, 4 * MS)).isEqualTo(6 * MS);
    assertThat(interval.nanosUntilDue(true, 1, 12 * MS)).isZero();
    assertThat(interval.nanosUntilDue(false, 0, 12 * MS)).isEqualTo(Long.MAX_VALUE);
    assertThat(off.nanosUntilDue(true, 1000, 1000 * MS)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void whenEachPolicyWakesTheSyncerAndWhatItCountsAfterAForce() {
    SyncPolicy each = SyncPolicy.everyTransaction();
    SyncPolicy three = SyncPolicy.everyTransactions(3);
    SyncPolicy interval = SyncPolicy.every(Duration.ofMillis(10));
    SyncPolicy off = SyncPolicy.off();
    assertThat(each.wakesSyncer(1)).isTrue();
    assertThat(three.wakesSyncer(2)).isFalse();
    assertThat(three.wakesSyncer(3)).isTrue();
    assertThat(interval.wakesSyncer(1)).isTrue();
    assertThat(off.wakesSyncer(1000)).isFalse();
    assertThat(each.waitingAfterForce(5)).isZero();
    assertThat(three.waitingAfterForce(7)).isEqualTo(1);
    assertThat(interval.waitingAfterForce(5)).isZero();
    assertThat(off.waitingAfterForce(5)).isZero();
    assertThat(each.forcesEveryTransaction()).isTrue();
    assertThat(SyncPolicy.everyTransactions(1).forcesEveryTransaction()).isTrue();
    assertThat(three.forcesEveryTransaction()).isFalse();
    assertThat(interval.forcesEveryTransaction()).isFalse();
    assertThat(off.forcesEveryTransaction()).isFalse();
  }

  @Test
  void policiesParseFromConfiguration() {
    assertThat(SyncPolicy.parse("every-transaction")).isEqualTo(SyncPolicy.everyTransaction());
    assertThat(SyncPolicy.parse("every-100-transactions"))
        .isEqualTo(SyncPolicy.everyTransactions(100));
    assertThat(SyncPolicy.parse("every-250ms")).isEqualTo(SyncPolicy.every(Duration.ofMillis(250)));
    assertThat(SyncPolicy.parse("every-2s")).isEqualTo(SyncPolicy.every(Duration.ofSeconds(2)));
    assertThat(SyncPolicy.parse("off")).isEqualTo(SyncPolicy.off());
    assertThat(SyncPolicy.parse("every-100-transactions").toString())
        .isEqualTo("every-100-transactions");
  }

  @Test
  void everyTransactionMakesEachTransactionDurableWithoutTheWriterWaiting() throws Exception {
    List<CompletableFuture<Position>> acks = new ArrayList<>();
    List<Position> advances = Collections.synchronizedList(new ArrayList<>());
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      store.durable().addListener(advances::add);
      store.startStream();
      int transactions = 0;
      for (BinlogEvent e : source.dumpStream(Position.startOf(source.files.get(0)))) {
        Appended a = store.append(e);
        if (a.completedTransaction()) {
          transactions++;
          acks.add(store.whenDurable(a.position()));
        }
      }
      CompletableFuture.allOf(acks.toArray(new CompletableFuture<?>[0])).get(10, TimeUnit.SECONDS);
      assertThat(store.durableEnd()).isEqualTo(store.readableEnd());
      // Group commit: never more forces than transactions (usually far fewer).
      System.out.printf(
          "every-transaction: %d transactions, %d durable advances%n",
          transactions, advances.size());
      for (int i = 1; i < advances.size(); i++) {
        assertThat(advances.get(i)).isGreaterThan(advances.get(i - 1));
      }
    }
  }

  @Test
  void offForcesOnlyAtCheckpointsRotationsAndOnRequest() throws Exception {
    StoreConfig config =
        Stores.config(dir, source)
            .syncPolicy(SyncPolicy.off())
            .checkpointBytes(Long.MAX_VALUE)
            .checkpointInterval(Duration.ofDays(1))
            .build();
    try (BinlogStore store = BinlogStore.open(config)) {
      store.startStream();
      List<BinlogEvent> stream = source.dumpStream(Position.startOf(source.files.get(0)));
      Appended last = null;
      int i = 0;
      for (; i < stream.size() / 4; i++) {
        Appended a = store.append(stream.get(i));
        if (a.completedTransaction()) {
          last = a;
        }
      }
      CompletableFuture<Position> durable = store.whenDurable(last.position());
      assertThat(durable).as("off: no force per transaction").isNotDone();
      assertThat(store.sync().get(5, TimeUnit.SECONDS)).isEqualTo(store.readableEnd());
      assertThat(durable.get(5, TimeUnit.SECONDS)).isEqualTo(last.position());
      // The end of the first file (STOP) becomes durable with the file's close, without a request.
      String firstFile = source.files.get(0);
      Position endOfFirst = new Position(firstFile, source.bytes.get(firstFile).length);
      CompletableFuture<Position> closeForced = store.whenDurable(endOfFirst);
      while (store.currentFile().orElse("").equals(firstFile) || store.currentFile().isEmpty()) {
        store.append(stream.get(i++));
      }
      assertThat(closeForced.get(5, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(endOfFirst);
    }
  }

  @Test
  void everyNTransactionsAndIntervalsGetThere() throws Exception {
    for (SyncPolicy policy :
        List.of(SyncPolicy.everyTransactions(3), SyncPolicy.every(Duration.ofMillis(20)))) {
      Path d = dir.resolve(policy.toString());
      try (BinlogStore store =
          BinlogStore.open(Stores.config(d, source).syncPolicy(policy).build())) {
        store.startStream();
        Appended last = null;
        int transactions = 0;
        for (BinlogEvent e : source.dumpStream(Position.startOf(source.files.get(0)))) {
          Appended a = store.append(e);
          if (a.completedTransaction()) {
            last = a;
            if (++transactions == 6) {
              break;
            }
          }
        }
        assertThat(store.whenDurable(last.position()).get(5, TimeUnit.SECONDS))
            .isGreaterThanOrEqualTo(last.position());
      }
    }
  }

  @Test
  void readersOnlySeeDurableTransactionsWhenConfiguredSo() throws Exception {
    StoreConfig config =
        Stores.config(dir, source)
            .syncPolicy(SyncPolicy.off())
            .readableWhenDurable(true)
            .checkpointBytes(Long.MAX_VALUE)
            .checkpointInterval(Duration.ofDays(1))
            .build();
    try (BinlogStore store = BinlogStore.open(config)) {
      store.startStream();
      List<BinlogEvent> stream = source.dumpStream(Position.startOf(source.files.get(0)));
      Position written = null;
      for (int i = 0; i < stream.size() / 4; i++) {
        Appended a = store.append(stream.get(i));
        if (a.completedTransaction()) {
          written = a.position();
        }
        Position readable = store.readableEnd();
        Position durable = store.durableEnd();
        if (readable != null) {
          assertThat(readable).isLessThanOrEqualTo(durable);
        }
      }
      Position readable = store.readableEnd();
      assertThat(readable == null || readable.isBefore(written))
          .as("readable " + readable)
          .isTrue();
      store.sync().get(5, TimeUnit.SECONDS);
      assertThat(store.readableEnd()).isEqualTo(written);
      assertThat(store.executedGtids()).isEqualTo(Stores.sourceGtidsAt(source, written));
    }
  }

  @Test
  void watchersWaitForChangesAndListenersHearAboutFiles() throws Exception {
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      store.addListener(
          new StoreListener() {
            @Override
            public void fileCreated(String name) {
              events.add("created " + name);
            }

            @Override
            public void fileClosed(FileMetadata metadata) {
              events.add("closed " + metadata.name() + " " + metadata.ending());
            }
          });
      assertThat(store.readable().awaitChange(null, Duration.ofMillis(1))).isNull();
      CompletableFuture<Position> seen =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return store.readable().awaitChange(null, Duration.ofSeconds(10));
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      Stores.appendFrom(store, source);
      assertThat(seen.get(10, TimeUnit.SECONDS)).isNotNull();
      store.sync().get(5, TimeUnit.SECONDS);
      Position end = store.readableEnd();
      assertThat(store.readable().awaitChange(end, Duration.ofMillis(5))).isEqualTo(end);
    }
    // Closing is the syncer's background work: a close may be heard after the next file's creation.
    assertThat(events)
        .filteredOn(e -> e.startsWith("created"))
        .containsExactly("created binlog.000001", "created binlog.000002", "created binlog.000003");
    assertThat(events)
        .filteredOn(e -> e.startsWith("closed"))
        .containsExactly("closed binlog.000001 STOP", "closed binlog.000002 ROTATE");
    assertThat(events.indexOf("closed binlog.000001 STOP"))
        .isGreaterThan(events.indexOf("created binlog.000001"));
  }

  @Test
  void closingFailsWaitsThatCannotBeMet() throws IOException {
    BinlogStore store = BinlogStore.open(Stores.config(dir, source).build());
    CompletableFuture<Position> never = store.whenDurable(new Position("binlog.000099", 4));
    store.close();
    assertThat(never).isCompletedExceptionally();
    assertThat(store.sync()).isCompletedExceptionally();
  }
}
