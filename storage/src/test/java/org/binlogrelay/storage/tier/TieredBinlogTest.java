package org.binlogrelay.storage.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.OpenedFile;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.TestStores;
import org.binlogrelay.storage.testing.DirectoryArchiveTier;
import org.binlogrelay.storage.testing.DirectoryArchiveTier.Fetch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The view over an archive and a store, both filled from the fixture binlogs: the store's older
 * files archived (copied) and removed locally, as retention with an archive does.
 */
class TieredBinlogTest {
  @TempDir Path dir;

  /** A settled store holding every file of {@code source}; the last one stays open. */
  private BinlogStore settled(Path at, SourceFiles source) throws Exception {
    BinlogStore store = TestStores.filled(at, source);
    TestStores.settle(store);
    return store;
  }

  @Test
  void filesAreTheArchivedOnesBeforeTheStoresThenTheStores() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      List<String> f = source.files;
      Path root = dir.resolve(source.directory);
      try (BinlogStore store = settled(root.resolve("store"), source)) {
        List<FileMetadata> before = store.files();
        DirectoryArchiveTier tier =
            DirectoryArchiveTier.of(root.resolve("tier"), store, f.subList(0, 2));
        store.removeFilesBefore(f.get(2));
        TieredBinlog view = new TieredBinlog(store, tier);

        assertThat(view.files()).as(source.directory).isEqualTo(before);
        assertThat(view.file(f.get(0))).contains(before.get(0));
        assertThat(view.nextFile(f.get(0))).contains(f.get(1));
        assertThat(view.nextFile(f.get(1))).contains(f.get(2));
        assertThat(view.nextFile(f.get(2))).isEmpty();
        for (int i = 0; i < 2; i++) {
          assertThat(view.readableLength(f.get(i))).isEqualTo(source.bytes(f.get(i)).length);
        }
        assertThat(view.readableLength(f.get(2))).isEqualTo(store.readableLength(f.get(2)));
        assertThat(view.purgedGtids()).isEqualTo(before.get(0).gtidsAtStart());
        assertThat(store.purgedGtids()).isEqualTo(before.get(2).gtidsAtStart());
        assertThat(view.executedGtids()).isEqualTo(store.executedGtids());
        assertThat(view.readableEnd()).isEqualTo(store.readableEnd());
        assertThatThrownBy(() -> view.nextFile("binlog.999999"))
            .isInstanceOf(java.util.NoSuchElementException.class);
      }
    }
  }

  @Test
  void aFileBothArchivedAndStoredIsTheStores() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<String> f = source.files;
    try (BinlogStore store = settled(dir.resolve("store"), source)) {
      List<FileMetadata> before = store.files();
      DirectoryArchiveTier tier =
          DirectoryArchiveTier.of(dir.resolve("tier"), store, f.subList(0, 2));
      store.removeFilesBefore(f.get(1));
      TieredBinlog view = new TieredBinlog(store, tier);
      assertThat(view.files()).isEqualTo(before);
      try (OpenedFile opened = view.open(f.get(1))) {
        assertThat(opened.replaced()).isFalse();
        assertThat(opened.stillStored()).isTrue();
      }
      assertThat(tier.downloads()).isEmpty();
    }
  }

  @Test
  void aGapInFileNamesEndsTheViewAtTheStore() throws Exception {
    for (SourceFiles source : List.of(SourceFiles.mysql(), SourceFiles.mariadb())) {
      List<String> f = source.files;
      Path root = dir.resolve(source.directory);
      try (BinlogStore store = settled(root.resolve("store"), source)) {
        DirectoryArchiveTier tier =
            DirectoryArchiveTier.of(root.resolve("tier"), store, f.subList(0, 1));
        store.removeFilesBefore(f.get(2)); // f1 is in neither tier
        TieredBinlog view = new TieredBinlog(store, tier);
        assertThat(view.files()).isEqualTo(store.files());
        assertThat(view.file(f.get(0))).isEmpty();
        assertThat(view.purgedGtids()).isEqualTo(store.purgedGtids());
        assertThatThrownBy(() -> view.open(f.get(0))).isInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> view.readableLength(f.get(0)))
            .isInstanceOf(java.util.NoSuchElementException.class)
            .hasMessageContaining("neither stored locally nor archived");
      }
    }
  }

  @Test
  void aGapInGtidsEndsTheViewAtTheStore() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<String> f = source.files;
    try (BinlogStore store = settled(dir.resolve("store"), source)) {
      FileMetadata first = store.file(f.get(0)).orElseThrow();
      MysqlGtidSet more = (MysqlGtidSet) first.gtidsAtEnd().copy();
      more.add(MysqlGtid.parse("99999999-8888-7777-6666-555555555555:1"));
      FileMetadata foreign =
          new FileMetadata(
              first.name(),
              first.flavor(),
              true,
              first.size(),
              first.transactions(),
              first.gtidsAtStart(),
              more,
              first.firstGtid(),
              first.lastGtid(),
              first.firstEventTime(),
              first.lastEventTime(),
              first.ending(),
              first.nextFile());
      DirectoryArchiveTier tier = new DirectoryArchiveTier(dir.resolve("tier"));
      tier.add(foreign, store.directory().resolve(f.get(0)));
      store.removeFilesBefore(f.get(1));
      TieredBinlog view = new TieredBinlog(store, tier);
      assertThat(view.files()).isEqualTo(store.files());
      // asked again: the same view, the gap is only logged once
      assertThat(view.files()).isEqualTo(store.files());
      assertThat(view.file(f.get(0))).isEmpty();
    }
  }

  @Test
  void opensTheCachedCopyOrFetchesIt() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    List<String> f = source.files;
    try (BinlogStore store = settled(dir.resolve("store"), source)) {
      DirectoryArchiveTier tier =
          DirectoryArchiveTier.of(dir.resolve("tier"), store, f.subList(0, 2));
      store.removeFilesBefore(f.get(2));
      TieredBinlog view = new TieredBinlog(store, tier, 0);

      tier.fetchMode(Fetch.DELAYED);
      ArchiveFetchPending pending = (ArchiveFetchPending) catchThrowable(() -> view.open(f.get(0)));
      assertThat(pending.file()).isEqualTo(f.get(0));
      assertThat(pending.fetch()).isNotDone();
      assertThat(pending.failure()).isNull();
      assertThat(pending).hasMessageContaining(f.get(0) + " is archived");
      assertThat(tier.pins(f.get(0))).isZero();
      // a second open joins the same download
      ArchiveFetchPending again = (ArchiveFetchPending) catchThrowable(() -> view.open(f.get(0)));
      assertThat(again.fetch()).isSameAs(pending.fetch());
      assertThat(tier.downloads()).containsExactly(f.get(0));

      tier.completeFetch(f.get(0));
      assertThat(pending.whenDone()).isDone();
      try (OpenedFile opened = view.open(f.get(0))) {
        assertThat(opened.channel().size()).isEqualTo(source.bytes(f.get(0)).length);
        assertThat(opened.replaced()).isFalse();
        assertThat(tier.pins(f.get(0))).isEqualTo(1);
        assertThat(tier.evict(f.get(0))).as("pinned while open").isFalse();
      }
      assertThat(tier.pins(f.get(0))).isZero();
      assertThat(tier.evict(f.get(0))).isTrue();

      tier.fetchMode(Fetch.FAILING);
      ArchiveFetchPending failed = (ArchiveFetchPending) catchThrowable(() -> view.open(f.get(0)));
      assertThat(failed.failure()).hasMessageContaining("refuses to give " + f.get(0));
      assertThat(tier.pins(f.get(0))).isZero();
    }
  }

  @Test
  void aDamagedCachedCopyIsRefusedWithAClearError() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<String> f = source.files;
    try (BinlogStore store = settled(dir.resolve("store"), source)) {
      DirectoryArchiveTier tier =
          DirectoryArchiveTier.of(dir.resolve("tier"), store, f.subList(0, 2));
      store.removeFilesBefore(f.get(2));
      java.nio.file.Files.write(dir.resolve("tier/cache").resolve(f.get(0)), new byte[] {1, 2});
      TieredBinlog view = new TieredBinlog(store, tier, 0);
      assertThatThrownBy(() -> view.open(f.get(0)))
          .isInstanceOf(org.binlogrelay.storage.StoreException.class)
          .hasMessageContaining("cached copy of " + f.get(0))
          .hasMessageContaining(
              "has 2 bytes but the archive lists " + source.bytes(f.get(0)).length);
      assertThat(tier.pins(f.get(0))).isZero();
    }
  }

  @Test
  void openingAnArchivedFilePrefetchesTheNextArchivedOnes() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<String> f = source.files;
    try (BinlogStore store = settled(dir.resolve("store"), source)) {
      DirectoryArchiveTier tier =
          DirectoryArchiveTier.of(dir.resolve("tier"), store, f.subList(0, 2));
      store.removeFilesBefore(f.get(2));
      try (OpenedFile opened = new TieredBinlog(store, tier).open(f.get(0))) {
        assertThat(tier.downloads()).containsExactly(f.get(0), f.get(1));
      }
      try (OpenedFile opened = new TieredBinlog(store, tier).open(f.get(1))) {
        assertThat(tier.downloads()).as("the local file is not fetched").hasSize(2);
      }
    }
  }

  @Test
  void aLocalFileRemovedAfterNextFileIsOpenedFromTheArchive() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<String> f = source.files;
    try (BinlogStore store = settled(dir.resolve("store"), source)) {
      DirectoryArchiveTier tier =
          DirectoryArchiveTier.of(dir.resolve("tier"), store, f.subList(0, 2));
      store.removeFilesBefore(f.get(1));
      TieredBinlog view = new TieredBinlog(store, tier, 0);
      assertThat(view.nextFile(f.get(0))).contains(f.get(1));
      store.removeFilesBefore(f.get(2)); // retention, between nextFile and open
      try (OpenedFile opened = view.open(f.get(1))) {
        assertThat(opened.channel().size()).isEqualTo(source.bytes(f.get(1)).length);
      }
      assertThat(tier.downloads()).containsExactly(f.get(1));
      assertThat(view.readableLength(f.get(1))).isEqualTo(source.bytes(f.get(1)).length);
      assertThat(view.nextFile(f.get(1))).contains(f.get(2));
    }
  }

  @Test
  void anEmptyStoreShowsTheArchivesEnd() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    List<String> f = source.files;
    DirectoryArchiveTier tier;
    List<FileMetadata> archived;
    try (BinlogStore store = settled(dir.resolve("old"), source)) {
      tier = DirectoryArchiveTier.of(dir.resolve("tier"), store, f.subList(0, 2));
      archived = store.files().subList(0, 2);
    }
    try (BinlogStore empty =
        BinlogStore.open(TestStores.config(dir.resolve("new"), source.flavor).build())) {
      TieredBinlog view = new TieredBinlog(empty, tier);
      assertThat(view.files()).isEqualTo(archived);
      assertThat(view.readableEnd())
          .isEqualTo(new Position(f.get(1), source.bytes(f.get(1)).length));
      assertThat(view.executedGtids()).isEqualTo(archived.get(1).gtidsAtEnd());
      assertThat(view.purgedGtids()).isEqualTo(archived.get(0).gtidsAtStart());
      assertThat(view.nextFile(f.get(1))).isEqualTo(Optional.empty());
    }
  }

  private static Throwable catchThrowable(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(t).isInstanceOf(ArchiveFetchPending.class);
    return t;
  }
}
