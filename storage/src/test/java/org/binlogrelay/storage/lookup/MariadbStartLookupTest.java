package org.binlogrelay.storage.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.MariadbStartException.Kind;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.SourceFiles.Tx;
import org.binlogrelay.storage.read.testing.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MariaDB GTID start lookup over the MariaDB 10.11 fixture binlogs: domains 0 (servers 1 and 2) and
 * 2, GTID_LIST of binlog 2 = 0-2-9,0-1-11,2-1-2 and of binlog 3 = 0-2-9,0-1-16,2-1-3.
 */
class MariadbStartLookupTest {
  @TempDir Path dir;

  @Test
  void everyPrefixOfTheHistoryStartsAtTheNextGroup() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    List<Tx> txs = source.transactions();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      MariadbStartLookup lookup = new MariadbStartLookup(store);
      for (int k = 0; k <= txs.size(); k++) {
        MariadbGtidSet state = MariadbGtidSet.empty();
        txs.subList(0, k).forEach(t -> state.add((MariadbGtid) t.gtid()));
        MariadbGtidSet position = MariadbGtidSet.parsePosition(state.toPositionString());
        MariadbStart result = lookup.find(position, true, false);
        assertThat(result)
            .as("prefix " + k + ": " + position.toPositionString())
            .isInstanceOf(MariadbStart.Found.class);
        MariadbStart.Found found = (MariadbStart.Found) result;
        if (k < txs.size()) {
          Tx next = txs.get(k);
          assertThat(found.firstToSend())
              .as("prefix " + k)
              .isEqualTo(new Position(next.file(), next.start()));
          assertThat(source.files.indexOf(found.start().file()))
              .isLessThanOrEqualTo(source.files.indexOf(next.file()));
        } else {
          String last = source.lastFile();
          assertThat(found.firstToSend()).isEqualTo(new Position(last, source.bytes(last).length));
        }
        int sent = k;
        StartChecks.assertSends(
            store, source, found.start(), found.filter(), t -> txs.indexOf(t) < sent);
      }
    }
  }

  @Test
  void domainsAtDifferentPlacesGoBackToTheFileOfTheOldest() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      MariadbGtidSet position = MariadbGtidSet.parsePosition("0-1-16,2-1-1");
      MariadbStart.Found found =
          (MariadbStart.Found) new MariadbStartLookup(store).find(position, true, false);
      assertThat(found.start()).isEqualTo(Position.startOf(source.files.get(0)));
      Tx first = tx(source, "2-1-2");
      assertThat(found.firstToSend()).isEqualTo(new Position(first.file(), first.start()));
      Set<MariadbGtid> send =
          Set.of(
              gtid("2-1-2"),
              gtid("2-1-3"),
              gtid("0-1-100"),
              gtid("0-1-101"),
              gtid("0-1-102"),
              gtid("2-1-4"));
      StartChecks.assertSends(
          store, source, found.start(), found.filter(), t -> !send.contains(t.gtid()));
    }
  }

  @Test
  void aGtidAtTheEndOfAFilesListStartsAtThatFile() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      // 0-1-16 and 2-1-3 are the last GTIDs of their domains before binlog 3: nothing to skip
      // there.
      MariadbStart.Found found =
          (MariadbStart.Found)
              new MariadbStartLookup(store)
                  .find(MariadbGtidSet.parsePosition("0-1-16,2-1-3"), true, false);
      assertThat(found.start()).isEqualTo(Position.startOf(source.lastFile()));
      assertThat(found.filter().waitingFor()).isEmpty();
      Tx first = source.transactionsOf(source.lastFile()).get(0);
      assertThat(found.firstToSend()).isEqualTo(new Position(first.file(), first.start()));
    }
  }

  @Test
  void gtidsNotInTheBinlogAreRefusedAsMariadbDoes() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      MariadbStartLookup lookup = new MariadbStartLookup(store);
      MariadbStart ahead = lookup.find(MariadbGtidSet.parsePosition("0-1-200"), false, false);
      assertThat(ahead).isEqualTo(new MariadbStart.Refused(Kind.NOT_IN_BINLOG, gtid("0-1-200")));
      assertThat(((MariadbStart.Refused) ahead).message())
          .isEqualTo(
              "Error: connecting slave requested to start"
                  + " from GTID 0-1-200, which is not in the master's binlog");

      MariadbStart diverged =
          lookup.find(MariadbGtidSet.parsePosition("0-3-5,2-1-4"), false, false);
      assertThat(diverged).isEqualTo(new MariadbStart.Refused(Kind.DIVERGED, gtid("0-3-5")));
      assertThat(((MariadbStart.Refused) diverged).message())
          .endsWith(
              "Since the master's binlog contains GTIDs"
                  + " with higher sequence numbers, it probably means that the slave has diverged due to executing extra"
                  + " erroneous transactions");

      // gtid_ignore_duplicates: a GTID ahead of the binlog is accepted; the domain is skipped until
      // it comes.
      MariadbStart.Found duplicates =
          (MariadbStart.Found) lookup.find(MariadbGtidSet.parsePosition("0-1-200"), false, true);
      assertThat(duplicates.start()).isEqualTo(Position.startOf(source.files.get(0)));
      Tx first = tx(source, "2-1-1");
      assertThat(duplicates.firstToSend()).isEqualTo(new Position(first.file(), first.start()));
    }
  }

  @Test
  void aDomainTheBinlogNeverHadIsAcceptedUntilItShowsUp() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      MariadbStart.Found found =
          (MariadbStart.Found)
              new MariadbStartLookup(store)
                  .find(MariadbGtidSet.parsePosition("0-1-102,2-1-4,5-1-3"), true, false);
      assertThat(found.start()).isEqualTo(Position.startOf(source.lastFile()));
      String last = source.lastFile();
      assertThat(found.firstToSend()).isEqualTo(new Position(last, source.bytes(last).length));
      assertThat(found.filter().waitingFor()).containsKey(5L);
    }
  }

  @Test
  void strictModeRefusesAStartInAHole() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      MariadbStartLookup lookup = new MariadbStartLookup(store);
      MariadbGtidSet position = MariadbGtidSet.parsePosition("0-1-50,2-1-4");
      assertThat(lookup.find(position, true, false))
          .isEqualTo(new MariadbStart.Refused(Kind.HOLE, gtid("0-1-50")));
      MariadbStart.Found lenient = (MariadbStart.Found) lookup.find(position, false, false);
      Tx first = tx(source, "0-1-100");
      assertThat(lenient.firstToSend()).isEqualTo(new Position(first.file(), first.start()));
    }
  }

  @Test
  void aPositionOlderThanTheStoredFilesIsPurged() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      TestStores.settle(store);
      store.removeFilesBefore(source.files.get(1));
      MariadbStartLookup lookup = new MariadbStartLookup(store);
      MariadbGtidSet old = MariadbGtidSet.parsePosition("0-1-3,2-1-1");
      assertThat(lookup.find(old, true, false)).isEqualTo(new MariadbStart.Purged(old));
      assertThat(lookup.find(MariadbGtidSet.empty(), true, false))
          .isEqualTo(new MariadbStart.Purged(MariadbGtidSet.empty()));
      assertThat(MariadbStart.Purged.MESSAGE)
          .isEqualTo(
              "Could not find GTID state requested by slave in any binlog"
                  + " files. Probably the slave state is too old and required binlog files have been purged.");
      MariadbStart.Found justInTime =
          (MariadbStart.Found)
              lookup.find(MariadbGtidSet.parsePosition("0-1-11,2-1-2"), true, false);
      assertThat(justInTime.start()).isEqualTo(Position.startOf(source.files.get(1)));
    }
  }

  @Test
  void anEmptyStoreHasNothingToCompare() throws Exception {
    try (BinlogStore store =
        BinlogStore.open(TestStores.config(dir, SourceFiles.mariadb().flavor).build())) {
      assertThat(
              new MariadbStartLookup(store)
                  .find(MariadbGtidSet.parsePosition("0-1-3"), false, false))
          .isEqualTo(new MariadbStart.NothingStored());
    }
  }

  private static MariadbGtid gtid(String text) {
    return MariadbGtid.parse(text);
  }

  private static Tx tx(SourceFiles source, String gtid) {
    return source.transactions().stream()
        .filter(t -> t.gtid().equals(gtid(gtid)))
        .findFirst()
        .orElseThrow();
  }
}
