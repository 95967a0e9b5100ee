package org.binlogrelay.storage.pitr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.GtidEvent;
import org.binlogrelay.protocol.event.GtidListEvent;
import org.binlogrelay.protocol.event.PreviousGtidsEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.txn.Transaction;
import org.binlogrelay.protocol.txn.TransactionBoundaries;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.pitr.StopPointException.Reason;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.SyntheticBinlog;
import org.binlogrelay.storage.read.testing.TestStores;
import org.binlogrelay.storage.testing.DirectoryArchiveTier;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stop points at every transaction boundary of the MySQL 9.7, MariaDB 10.11 and 11.8 fixtures, by
 * time and by GTID, against an account of the fixtures made from their bytes with protocol classes
 * only (commit times, GTID sets after each transaction).
 */
class StopPointFinderTest {
  @TempDir Path dir;

  /** One transaction of a fixture as the test reads it. */
  record Expected(
      String file, long start, long end, Object gtid, long micros, boolean exact, GtidSet after) {
    long latest() {
      return exact ? micros : micros + 999_999;
    }
  }

  @Test
  void everyBoundaryByGtid() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      List<Expected> txs = account(source);
      try (BinlogStore store = filled(source)) {
        StopPointFinder finder = new StopPointFinder(store);
        for (int i = 0; i < txs.size(); i++) {
          Expected tx = txs.get(i);
          String label = source.directory + " transaction " + i + " " + tx.gtid();
          if (i == 0) {
            assertReason(
                () -> finder.beforeGtid(tx.gtid().toString()), Reason.BEFORE_FIRST_TRANSACTION);
          } else {
            StopPoint before = finder.beforeGtid(tx.gtid().toString());
            assertStopAfter(before, txs.get(i - 1), label);
            assertThat(before.reason()).startsWith("right before " + tx.gtid() + " at ");
          }
          StopPoint after = finder.afterGtids(tx.after());
          assertStopAfter(after, tx, label + " (set after it)");
          assertThat(after.reason()).startsWith("after " + tx.gtid() + " at ");
          assertStopAfter(finder.afterGtids(single(source.flavor, tx.gtid())), tx, label);
        }
      }
    }
  }

  /**
   * Over the tiered view with the two oldest files only in the archive (removed locally): the same
   * stop at every boundary, the archived files fetched for the scans.
   */
  @Test
  void everyBoundaryByGtidAcrossTiers() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      List<Expected> txs = account(source);
      List<String> f = source.files;
      try (BinlogStore store = filled(source)) {
        DirectoryArchiveTier tier =
            DirectoryArchiveTier.of(
                dir.resolve(source.directory + "-tier"), store, f.subList(0, 2));
        store.removeFilesBefore(f.get(2));
        StopPointFinder finder = new StopPointFinder(new TieredBinlog(store, tier));
        for (int i = 1; i < txs.size(); i++) {
          Expected tx = txs.get(i);
          String label = source.directory + " (tiered) transaction " + i + " " + tx.gtid();
          assertStopAfter(finder.beforeGtid(tx.gtid().toString()), txs.get(i - 1), label);
          assertStopAfter(finder.afterGtids(tx.after()), tx, label + " (set after it)");
        }
        assertThat(tier.downloads()).as(source.directory).isNotEmpty();
      }
    }
  }

  @Test
  void everyBoundaryByTime() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      List<Expected> txs = account(source);
      try (BinlogStore store = filled(source)) {
        StopPointFinder finder = new StopPointFinder(store);
        for (Expected tx : txs) {
          for (long micros :
              new long[] {tx.micros(), tx.latest(), tx.latest() + 1, tx.micros() - 1}) {
            Instant t = StopPointFinder.instantOfMicros(micros);
            checkTime(finder, txs, t, source.directory + " at " + t);
          }
          // A time between two microseconds: commits at the microsecond below it are before it.
          Instant between = StopPointFinder.instantOfMicros(tx.latest()).plusNanos(500);
          checkTime(finder, txs, between, source.directory + " at " + between);
        }
      }
    }
  }

  @Test
  void mariadbTimesAreWholeSecondsAndEqualTimesStopTogether() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    List<Expected> txs = account(source);
    assertThat(txs).noneMatch(Expected::exact);
    int equal = 0;
    for (int i = 1; i < txs.size(); i++) {
      if (txs.get(i).micros() == txs.get(i - 1).micros()) {
        equal++;
      }
    }
    assertThat(equal).as("the fixture has transactions logged in the same second").isPositive();
    try (BinlogStore store = filled(source)) {
      StopPointFinder finder = new StopPointFinder(store);
      Expected last = txs.get(txs.size() - 1);
      // Exactly at a commit second: every transaction of that second is after the stop.
      Instant at = StopPointFinder.instantOfMicros(last.micros());
      StopPoint stop = finder.beforeTime(at);
      assertThat(stop.commitTimeMicros()).isLessThan(last.micros());
      // Inside the second: still after the stop, since the commit may be later in the second.
      assertThat(finder.beforeTime(at.plusMillis(500)).end()).isEqualTo(stop.end());
      assertThat(finder.beforeTime(at.plusSeconds(1)).end()).isEqualTo(endOf(last));
    }
  }

  @Test
  void mysqlTimesAreCommitMicroseconds() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<Expected> txs = account(source);
    assertThat(txs).allMatch(Expected::exact);
    try (BinlogStore store = filled(source)) {
      StopPointFinder finder = new StopPointFinder(store);
      Expected tx = txs.get(5);
      Instant commit = StopPointFinder.instantOfMicros(tx.micros());
      assertThat(finder.beforeTime(commit).end()).isNotEqualTo(endOf(tx));
      StopPoint stop = finder.beforeTime(commit.plusNanos(1000));
      assertThat(stop.end()).isEqualTo(endOf(tx));
      assertThat(stop.commitTime()).isEqualTo(commit);
      assertThat(stop.reason()).contains("before " + commit.plusNanos(1000));
    }
  }

  @Test
  void timesOutsideTheStore() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      List<Expected> txs = account(source);
      try (BinlogStore store = filled(source)) {
        StopPointFinder finder = new StopPointFinder(store);
        assertReason(() -> finder.beforeTime(Instant.EPOCH), Reason.BEFORE_FIRST_TRANSACTION);
        assertReason(
            () -> finder.beforeTime(StopPointFinder.instantOfMicros(txs.get(0).micros())),
            Reason.BEFORE_FIRST_TRANSACTION);
        StopPoint end = finder.beforeTime(Instant.parse("2200-01-01T00:00:00Z"));
        assertStopAfter(end, txs.get(txs.size() - 1), source.directory + " future");
        assertThat(end.reason()).contains("store's end");
      }
    }
  }

  @Test
  void gtidsTheStoreDoesNotHave() throws Exception {
    try (BinlogStore store = filled(SourceFiles.mysql())) {
      StopPointFinder finder = new StopPointFinder(store);
      String foreign = "aaaaaaaa-0000-4000-8000-000000000001:5";
      assertReason(() -> finder.beforeGtid(foreign), Reason.GTID_NOT_FOUND);
      assertReason(
          () -> finder.beforeGtid("3b1e7c52-0000-4000-8000-00000000f001:999"),
          Reason.GTID_NOT_FOUND);
      assertThatThrownBy(() -> finder.afterGtids(MysqlGtidSet.parse(foreign + ",")))
          .isInstanceOfSatisfying(
              StopPointException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.GTIDS_NOT_STORED);
                assertThat(e.getMessage()).contains("aaaaaaaa-0000-4000-8000-000000000001:5");
              });
      assertThatThrownBy(() -> finder.beforeGtid("0-1-5"))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> finder.afterGtids(MariadbGtidSet.parse("0-1-5")))
          .isInstanceOf(IllegalArgumentException.class);
    }
    try (BinlogStore store = filled(SourceFiles.mariadb())) {
      StopPointFinder finder = new StopPointFinder(store);
      assertReason(() -> finder.beforeGtid("0-1-500"), Reason.GTID_NOT_FOUND);
      // Sequence numbers 17-99 of domain 0 were never logged (the fixture sets gtid_seq_no).
      assertReason(() -> finder.beforeGtid("0-1-50"), Reason.GTID_NOT_FOUND);
      assertReason(() -> finder.afterGtids(MariadbGtidSet.parse("7-1-1")), Reason.GTIDS_NOT_STORED);
    }
  }

  @Test
  void purgedGtidsAndAStoreStartingMidStream() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      List<Expected> txs = account(source);
      try (BinlogStore store = filled(source)) {
        store.removeFilesBefore(source.files.get(1));
        StopPointFinder finder = new StopPointFinder(store);
        List<Expected> kept =
            txs.stream().filter(t -> !t.file().equals(source.files.get(0))).toList();
        assertThatThrownBy(() -> finder.beforeGtid(txs.get(0).gtid().toString()))
            .isInstanceOfSatisfying(
                StopPointException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(Reason.GTID_NOT_FOUND);
                  assertThat(e.getMessage()).contains("purged");
                });
        assertReason(
            () -> finder.beforeGtid(kept.get(0).gtid().toString()),
            Reason.BEFORE_FIRST_TRANSACTION);
        assertStopAfter(finder.beforeGtid(kept.get(1).gtid().toString()), kept.get(0), "kept");
        assertReason(() -> finder.afterGtids(txs.get(0).after()), Reason.BEFORE_FIRST_TRANSACTION);
        assertReason(
            () -> finder.beforeTime(StopPointFinder.instantOfMicros(kept.get(0).micros())),
            Reason.BEFORE_FIRST_TRANSACTION);
        for (Expected tx : kept) {
          checkTime(
              finder, kept, StopPointFinder.instantOfMicros(tx.latest() + 1), source.directory);
        }
      }
    }
  }

  @Test
  void anEmptyStore() throws Exception {
    try (BinlogStore store =
        BinlogStore.open(TestStores.config(dir.resolve("empty"), GtidFlavor.MYSQL).build())) {
      StopPointFinder finder = new StopPointFinder(store);
      assertReason(() -> finder.beforeTime(Instant.now()), Reason.EMPTY_STORE);
      assertReason(
          () -> finder.beforeGtid("3b1e7c52-0000-4000-8000-00000000f001:1"), Reason.EMPTY_STORE);
      assertReason(() -> finder.afterGtids(MysqlGtidSet.empty()), Reason.EMPTY_STORE);
    }
  }

  /**
   * A MySQL binlog without commit timestamps (GTID events of the old length) falls back to the
   * header timestamps, whole seconds; ten files an hour apart, three transactions each in the same
   * second, so most files are passed over by their metadata.
   */
  @Test
  void mysqlWithoutCommitTimestampsUsesHeaderSeconds() throws Exception {
    long base = 1_795_000_000L;
    SyntheticBinlog b = SyntheticBinlog.mysql().at(base).startFile(name(0)).transactions(3);
    for (int i = 1; i < 10; i++) {
      b.rotateTo(name(i)).at(base + i * 3600L).transactions(3);
    }
    try (BinlogStore store =
        TestStores.unsynced(dir.resolve("synthetic"), GtidFlavor.MYSQL, b.drain())) {
      TestStores.settle(store);
      StopPointFinder finder = new StopPointFinder(store);
      for (int i = 1; i < 10; i++) {
        Instant fileTime = Instant.ofEpochSecond(base + i * 3600L);
        StopPoint before = finder.beforeTime(fileTime);
        assertThat(before.end().file()).isEqualTo(name(i - 1));
        assertThat(before.gtid()).isEqualTo(SyntheticBinlog.SOURCE + ":" + (3 * i));
        assertThat(before.commitTimeMicros()).isEqualTo((base + (i - 1) * 3600L) * 1_000_000L);
        assertThat(before.executedAtStop())
            .isEqualTo(MysqlGtidSet.parse(SyntheticBinlog.SOURCE + ":1-" + (3 * i)));
        assertThat(finder.beforeTime(fileTime.plusMillis(999)).end()).isEqualTo(before.end());
        StopPoint after = finder.beforeTime(fileTime.plusSeconds(1));
        assertThat(after.end().file()).isEqualTo(name(i));
        assertThat(after.gtid()).isEqualTo(SyntheticBinlog.SOURCE + ":" + (3 * i + 3));
      }
      assertReason(
          () -> finder.beforeTime(Instant.ofEpochSecond(base)), Reason.BEFORE_FIRST_TRANSACTION);
    }
  }

  // --- expectations -------------------------------------------------------------------------

  /** The stop for {@code t} by the definition: before the first transaction not before t. */
  private static void checkTime(StopPointFinder finder, List<Expected> txs, Instant t, String label)
      throws Exception {
    long tMicros = t.getEpochSecond() * 1_000_000L + (t.getNano() + 999) / 1000;
    int first = 0;
    while (first < txs.size() && txs.get(first).latest() < tMicros) {
      first++;
    }
    if (first == 0) {
      assertReason(() -> finder.beforeTime(t), Reason.BEFORE_FIRST_TRANSACTION);
    } else {
      StopPoint stop = finder.beforeTime(t);
      assertStopAfter(stop, txs.get(first - 1), label);
      assertThat(stop.reason())
          .contains(
              first < txs.size()
                  ? "; the next one is " + txs.get(first).gtid() + " at "
                  : "the store's end");
    }
  }

  private static void assertStopAfter(StopPoint stop, Expected tx, String label) {
    assertThat(stop.end()).as(label).isEqualTo(endOf(tx));
    assertThat(stop.executedAtStop()).as(label).isEqualTo(tx.after());
    assertThat(stop.gtid()).as(label).isEqualTo(String.valueOf(tx.gtid()));
    assertThat(stop.commitTimeMicros()).as(label).isEqualTo(tx.micros());
    assertThat(stop.reason()).as(label).isNotBlank();
  }

  private static Position endOf(Expected tx) {
    return new Position(tx.file(), tx.end());
  }

  private static void assertReason(ThrowingCall call, Reason reason) {
    assertThatThrownBy(call::call)
        .isInstanceOfSatisfying(
            StopPointException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(reason);
              assertThat(e.getMessage()).isNotBlank();
            });
  }

  @FunctionalInterface
  private interface ThrowingCall {
    Object call() throws Exception;
  }

  private BinlogStore filled(SourceFiles source) throws Exception {
    BinlogStore store = TestStores.filled(dir.resolve(source.directory), source);
    TestStores.settle(store);
    return store;
  }

  private static GtidSet single(GtidFlavor flavor, Object gtid) {
    if (flavor == GtidFlavor.MYSQL) {
      MysqlGtidSet set = MysqlGtidSet.empty();
      set.add((MysqlGtid) gtid);
      return set;
    }
    MariadbGtidSet set = MariadbGtidSet.empty();
    set.add((MariadbGtid) gtid);
    return set;
  }

  /** Every transaction of the fixture, read from its bytes with protocol classes only. */
  private static List<Expected> account(SourceFiles source) {
    List<Expected> out = new ArrayList<>();
    for (String name : source.files) {
      BinlogFileParser parser =
          new BinlogFileParser(source.bytes(name), SourceFiles.MAX_EVENT_SIZE);
      TransactionBoundaries<?> tracker = TransactionBoundaries.of(source.flavor, 4, null);
      FormatDescriptionEvent format = null;
      GtidSet set = null;
      long commit = 0;
      while (parser.hasNext()) {
        BinlogEvent e = parser.next();
        if (e.type() == EventType.FORMAT_DESCRIPTION) {
          format = FormatDescriptionEvent.parse(e);
        } else if (e.type() == EventType.PREVIOUS_GTIDS) {
          set = PreviousGtidsEvent.parse(e, format).gtids().copy();
        } else if (e.type() == EventType.GTID_LIST) {
          set = GtidListEvent.parse(e, format).gtidSet();
        } else if (e.type().isMysqlGtid()) {
          commit = GtidEvent.parse(e, format).immediateCommitTimestamp();
        }
        Transaction<?> t = tracker.accept(e, e.offset());
        if (t != null) {
          if (t.gtid() instanceof MysqlGtid g) {
            ((MysqlGtidSet) set).add(g);
          } else if (t.gtid() instanceof MariadbGtid g) {
            ((MariadbGtidSet) set).add(g);
          }
          boolean exact = commit > 0;
          long micros = exact ? commit : e.header().timestamp() * 1_000_000L;
          out.add(new Expected(name, t.start(), t.end(), t.gtid(), micros, exact, set.copy()));
          commit = 0;
        }
      }
    }
    int logged = 0;
    for (String name : source.files) {
      logged += Integer.parseInt(source.expected.getProperty("file." + name + ".gtid_count"));
    }
    assertThat(out).as("transactions of " + source.directory).hasSize(logged);
    return out;
  }

  private static String name(int i) {
    return String.format("binlog.%06d", i + 1);
  }
}
