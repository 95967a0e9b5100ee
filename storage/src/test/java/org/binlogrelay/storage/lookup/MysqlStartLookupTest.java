package org.binlogrelay.storage.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.SourceFiles.Tx;
import org.binlogrelay.storage.read.testing.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MySQL auto-position start lookup over the MySQL 9.7 fixture binlogs. */
class MysqlStartLookupTest {
  private static final UUID SOURCE = UUID.fromString("3b1e7c52-0000-4000-8000-00000000f001");
  private static final String OTHER = "11111111-2222-3333-4444-555555555555";

  @TempDir Path dir;

  @Test
  void everyPrefixOfTheHistoryStartsAtTheNextTransaction() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<Tx> txs = source.transactions();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      MysqlStartLookup lookup = new MysqlStartLookup(store);
      for (int k = 0; k <= txs.size(); k++) {
        MysqlGtidSet replica = MysqlGtidSet.empty();
        txs.subList(0, k).forEach(t -> replica.add((MysqlGtid) t.gtid()));
        MysqlStart result = lookup.find(replica, Set.of(SOURCE));
        assertThat(result).as("prefix " + k).isInstanceOf(MysqlStart.Found.class);
        MysqlStart.Found found = (MysqlStart.Found) result;
        if (k < txs.size()) {
          Tx next = txs.get(k);
          assertThat(found.start()).as("prefix " + k).isEqualTo(Position.startOf(next.file()));
          assertThat(found.firstToSend())
              .as("prefix " + k)
              .isEqualTo(new Position(next.file(), next.start()));
        } else {
          String last = source.lastFile();
          assertThat(found.start()).isEqualTo(Position.startOf(last));
          assertThat(found.firstToSend()).isEqualTo(new Position(last, source.bytes(last).length));
        }
        Tx first = source.transactionsOf(found.start().file()).get(0);
        assertThat(found.firstTransactionSkipped())
            .as(
                "prefix "
                    + k
                    + " first "
                    + first
                    + " meta "
                    + store.file(first.file()).orElseThrow().firstGtid())
            .isEqualTo(replica.contains((MysqlGtid) first.gtid()));
        StartChecks.assertSends(
            store,
            source,
            found.start(),
            found.filter(),
            t -> replica.contains((MysqlGtid) t.gtid()));
      }
    }
  }

  @Test
  void aReplicaMissingAnOlderTransactionStartsWhereItIs() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      MysqlGtidSet replica =
          ((MysqlGtidSet) store.executedGtids()).subtract(MysqlGtidSet.parse(SOURCE + ":13"));
      MysqlStart.Found found =
          (MysqlStart.Found) new MysqlStartLookup(store).find(replica, Set.of(SOURCE));
      Tx missing =
          source.transactions().stream()
              .filter(t -> t.gtid().equals(MysqlGtid.parse(SOURCE + ":13")))
              .findFirst()
              .orElseThrow();
      assertThat(found.start()).isEqualTo(Position.startOf(missing.file()));
      assertThat(found.firstToSend()).isEqualTo(new Position(missing.file(), missing.start()));
      assertThat(found.firstTransactionSkipped()).isTrue();
      StartChecks.assertSends(
          store,
          source,
          found.start(),
          found.filter(),
          t -> replica.contains((MysqlGtid) t.gtid()));
    }
  }

  @Test
  void aReplicaThatNeedsPurgedTransactionsIsRefused() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      TestStores.settle(store);
      store.removeFilesBefore(source.files.get(1));
      MysqlGtidSet purged = MysqlGtidSet.parse(OTHER + ":1," + SOURCE + ":1-11");
      assertThat(store.purgedGtids()).isEqualTo(purged);
      MysqlStartLookup lookup = new MysqlStartLookup(store);

      MysqlGtidSet behind = MysqlGtidSet.parse(SOURCE + ":1-5");
      MysqlStart result = lookup.find(behind, Set.of(SOURCE));
      assertThat(result)
          .isEqualTo(
              new MysqlStart.Purged(behind, MysqlGtidSet.parse(OTHER + ":1," + SOURCE + ":6-11")));

      MysqlStart.Found exactlyPurged = (MysqlStart.Found) lookup.find(purged, Set.of(SOURCE));
      assertThat(exactlyPurged.start()).isEqualTo(Position.startOf(source.files.get(1)));
      assertThat(exactlyPurged.firstTransactionSkipped()).isFalse();
    }
  }

  @Test
  void aReplicaWithMoreTransactionsOfACheckedSourceIsRefused() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      MysqlStartLookup lookup = new MysqlStartLookup(store);
      MysqlGtidSet executed = (MysqlGtidSet) store.executedGtids();

      MysqlGtidSet ahead = executed.union(MysqlGtidSet.parse(SOURCE + ":22-30"));
      assertThat(lookup.find(ahead, Set.of(SOURCE)))
          .isEqualTo(new MysqlStart.Diverged(ahead, MysqlGtidSet.parse(SOURCE + ":22-30")));

      MysqlGtidSet aheadTagged = executed.union(MysqlGtidSet.parse(SOURCE + ":mytag:5"));
      assertThat(lookup.find(aheadTagged, Set.of(SOURCE)))
          .isEqualTo(new MysqlStart.Diverged(aheadTagged, MysqlGtidSet.parse(SOURCE + ":mytag:5")));

      // Sources not checked may be ahead (another primary's transactions, or a relay behind its
      // primary).
      MysqlGtidSet foreign =
          executed.union(MysqlGtidSet.parse("aaaaaaaa-0000-4000-8000-000000000001:1-3"));
      assertThat(lookup.find(foreign, Set.of(SOURCE))).isInstanceOf(MysqlStart.Found.class);
      MysqlStart.Found unchecked = (MysqlStart.Found) lookup.find(ahead, Set.of());
      String last = source.lastFile();
      assertThat(unchecked.firstToSend()).isEqualTo(new Position(last, source.bytes(last).length));
    }
  }

  @Test
  void anEmptyStoreHasNothingToCompare() throws Exception {
    try (BinlogStore store =
        BinlogStore.open(TestStores.config(dir, SourceFiles.mysql().flavor).build())) {
      assertThat(
              new MysqlStartLookup(store).find(MysqlGtidSet.parse(SOURCE + ":1-3"), Set.of(SOURCE)))
          .isEqualTo(new MysqlStart.NothingStored());
    }
  }
}
