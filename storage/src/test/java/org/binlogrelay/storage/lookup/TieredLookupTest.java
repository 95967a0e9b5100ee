package org.binlogrelay.storage.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.lookup.PositionCheck.Invalid;
import org.binlogrelay.storage.lookup.PositionCheck.Problem;
import org.binlogrelay.storage.lookup.PositionCheck.Valid;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.SourceFiles.Tx;
import org.binlogrelay.storage.read.testing.TestStores;
import org.binlogrelay.storage.testing.DirectoryArchiveTier;
import org.binlogrelay.storage.testing.DirectoryArchiveTier.Fetch;
import org.binlogrelay.storage.tier.ArchiveFetchPending;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GTID and file-and-position start lookups over a {@link TieredBinlog} whose first two fixture
 * files are archived only: they land in the archive as they would in a store holding every file.
 */
class TieredLookupTest {
  private static final UUID SOURCE = UUID.fromString("3b1e7c52-0000-4000-8000-00000000f001");

  @TempDir Path dir;

  /** A store holding every file of {@code source}, settled (all but the last closed). */
  private static BinlogStore settled(Path root, SourceFiles source) throws Exception {
    BinlogStore store = TestStores.filled(root.resolve("store"), source);
    TestStores.settle(store);
    return store;
  }

  /** Archives the first two files of {@code store} and removes them locally. */
  private static TieredBinlog tiered(Path root, BinlogStore store, SourceFiles source)
      throws Exception {
    DirectoryArchiveTier tier =
        DirectoryArchiveTier.of(root.resolve("tier"), store, source.files.subList(0, 2));
    store.removeFilesBefore(source.files.get(2));
    return new TieredBinlog(store, tier);
  }

  @Test
  void mysqlEveryPrefixOfTheHistoryStartsAtTheNextTransactionAcrossTiers() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<Tx> txs = source.transactions();
    try (BinlogStore store = settled(dir, source)) {
      TieredBinlog view = tiered(dir, store, source);
      MysqlStartLookup lookup = new MysqlStartLookup(view);
      assertThat(new MysqlStartLookup(store).find(MysqlGtidSet.empty(), Set.of(SOURCE)))
          .as("the store alone has purged the first transactions")
          .isInstanceOf(MysqlStart.Purged.class);
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
        }
        StartChecks.assertSends(
            view,
            source,
            found.start(),
            found.filter(),
            t -> replica.contains((MysqlGtid) t.gtid()));
      }
    }
  }

  @Test
  void mariadbEveryPrefixOfTheHistoryStartsAtTheNextGroupAcrossTiers() throws Exception {
    for (SourceFiles source : List.of(SourceFiles.mariadb(), SourceFiles.mariadb118())) {
      Path root = dir.resolve(source.directory);
      List<Tx> txs = source.transactions();
      try (BinlogStore store = settled(root, source)) {
        TieredBinlog view = tiered(root, store, source);
        MariadbStartLookup lookup = new MariadbStartLookup(view);
        for (int k = 0; k <= txs.size(); k++) {
          MariadbGtidSet state = MariadbGtidSet.empty();
          txs.subList(0, k).forEach(t -> state.add((MariadbGtid) t.gtid()));
          MariadbGtidSet position = MariadbGtidSet.parsePosition(state.toPositionString());
          MariadbStart result = lookup.find(position, true, false);
          String what = source.directory + " prefix " + k + ": " + position.toPositionString();
          assertThat(result).as(what).isInstanceOf(MariadbStart.Found.class);
          MariadbStart.Found found = (MariadbStart.Found) result;
          if (k < txs.size()) {
            Tx next = txs.get(k);
            assertThat(found.firstToSend())
                .as(what)
                .isEqualTo(new Position(next.file(), next.start()));
          }
          int sent = k;
          StartChecks.assertSends(
              view, source, found.start(), found.filter(), t -> txs.indexOf(t) < sent);
        }
      }
    }
  }

  @Test
  void positionChecksInArchivedFilesJudgeAsOnLocalOnes() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      Path root = dir.resolve(source.directory);
      try (BinlogStore all = TestStores.filled(root.resolve("all"), source);
          BinlogStore store = settled(root, source)) {
        TieredBinlog view = tiered(root, store, source);
        PositionLookup tieredLookup = new PositionLookup(view);
        PositionLookup localLookup = new PositionLookup(all);
        for (String f : source.files.subList(0, 2)) {
          long size = source.bytes(f).length;
          for (long offset = 0; offset <= size + 5; offset += 1 + offset / 97) {
            assertThat(tieredLookup.check(f, offset))
                .as(source.directory + " " + f + ":" + offset)
                .isEqualTo(localLookup.check(f, offset));
          }
        }
        assertThat(tieredLookup.check("", 4))
            .as("the first file of the view")
            .isEqualTo(new Valid(Position.startOf(source.files.get(0))));
        assertThat(new PositionLookup(store).check(source.files.get(0), 4))
            .isEqualTo(new Invalid(Problem.FILE_NOT_FOUND, source.files.get(0), 4, -1, -1));
      }
    }
  }

  @Test
  void aLookupThatMustReadAFileBeingFetchedSaysSoThenFindsIt() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    try (BinlogStore store = settled(dir, source)) {
      TieredBinlog view = tiered(dir, store, source);
      DirectoryArchiveTier tier = (DirectoryArchiveTier) view.tier();
      tier.fetchMode(Fetch.DELAYED);
      MysqlStartLookup lookup = new MysqlStartLookup(view);
      Throwable pending = catchThrowable(() -> lookup.find(MysqlGtidSet.empty(), Set.of(SOURCE)));
      assertThat(pending).isInstanceOf(ArchiveFetchPending.class);
      tier.completeFetch(((ArchiveFetchPending) pending).file());
      MysqlStart.Found found = (MysqlStart.Found) lookup.find(MysqlGtidSet.empty(), Set.of(SOURCE));
      assertThat(found.start()).isEqualTo(Position.startOf(source.files.get(0)));

      String second = source.files.get(1);
      long inside = source.eventStarts(second).higher(4L) + 1;
      Throwable walk = catchThrowable(() -> new PositionLookup(view).check(second, inside));
      assertThat(walk).isInstanceOf(ArchiveFetchPending.class);
      tier.completeFetch(second);
      assertThat(new PositionLookup(view).check(second, inside))
          .isInstanceOf(Invalid.class)
          .extracting(c -> ((Invalid) c).problem())
          .isEqualTo(Problem.INSIDE_EVENT);
    }
  }
}
