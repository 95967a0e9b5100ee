package org.binlogrelay.storage.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException;
import org.binlogrelay.storage.read.BinlogReader;
import org.binlogrelay.storage.read.CaughtUp;
import org.binlogrelay.storage.read.EventBatch;
import org.binlogrelay.storage.read.ReadResult;
import org.binlogrelay.storage.read.ReaderOptions;
import org.binlogrelay.storage.read.ReaderRegistry;
import org.binlogrelay.storage.read.testing.SyntheticBinlog;
import org.binlogrelay.storage.read.testing.TestStores;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention over a store of ten synthetic files whose last events are an hour apart: file {@code i}
 * (from 0) ends at {@code BASE + i} hours; the last one is still being written.
 */
class RetentionTest {
  private static final long BASE = 1_795_000_000L;
  private static final int FILES = 10;

  @TempDir Path dir;

  @Test
  void removesFilesOlderThanTheMaximumAgeAsTheClockMoves() throws Exception {
    ManualTime clock = new ManualTime((BASE + 10 * 3600) * 1000);
    try (BinlogStore store = store(SyntheticBinlog.mysql())) {
      Retention retention =
          new Retention(
              store, RetentionPolicy.keepEverything().withMaxAge(Duration.ofHours(5)), null, clock);
      RetentionRun run = retention.run();
      assertThat(run.removed()).isEqualTo(names(0, 5));
      assertPurgedIsStartOfOldest(store);
      assertThat(retention.run().removed()).isEmpty();

      clock.advance(Duration.ofHours(2));
      assertThat(retention.run().removed()).isEqualTo(names(5, 7));
      clock.advance(Duration.ofDays(30));
      RetentionRun all = retention.run();
      assertThat(all.removed()).isEqualTo(names(7, 9));
      assertThat(all.keptUnsafe()).as("too old, but being written").containsExactly(name(9));
      assertThat(store.files()).extracting(FileMetadata::name).containsExactly(name(9));
      assertPurgedIsStartOfOldest(store);
      assertThat(retention.runs()).isEqualTo(4);
      assertThat(retention.filesPurged()).isEqualTo(9);
    }
  }

  @Test
  void removesTheOldestFilesBeyondTheTotalSize() throws Exception {
    try (BinlogStore store = store(SyntheticBinlog.mysql())) {
      List<FileMetadata> files = store.files();
      long lastThree = files.subList(FILES - 3, FILES).stream().mapToLong(FileMetadata::size).sum();
      long removedBytes = files.subList(0, FILES - 3).stream().mapToLong(FileMetadata::size).sum();
      Retention retention =
          new Retention(
              store,
              RetentionPolicy.keepEverything().withMaxTotalBytes(lastThree),
              null,
              new ManualTime(0));
      RetentionRun run = retention.run();
      assertThat(run.removed()).isEqualTo(names(0, FILES - 3));
      assertThat(run.bytes()).isEqualTo(removedBytes);
      assertThat(retention.bytesPurged()).isEqualTo(removedBytes);
      assertPurgedIsStartOfOldest(store);
    }
  }

  @Test
  void keepsAtMostTheMaximumNumberOfFiles() throws Exception {
    for (SyntheticBinlog b : List.of(SyntheticBinlog.mysql(), SyntheticBinlog.mariadb())) {
      try (BinlogStore store = store(b, dir.resolve(b.flavor().name()))) {
        Retention retention =
            new Retention(
                store, RetentionPolicy.keepEverything().withMaxFiles(4), null, new ManualTime(0));
        assertThat(retention.run().removed()).isEqualTo(names(0, 6));
        assertThat(store.files()).hasSize(4);
        assertPurgedIsStartOfOldest(store);
      }
    }
  }

  @Test
  void purgesUpToANamedFile() throws Exception {
    try (BinlogStore store = store(SyntheticBinlog.mariadb())) {
      Retention retention =
          new Retention(store, RetentionPolicy.keepEverything(), null, new ManualTime(0));
      assertThat(retention.run().removed()).isEmpty();
      assertThat(retention.purgeTo(name(3), false).removed()).isEqualTo(names(0, 3));
      assertPurgedIsStartOfOldest(store);
      assertThatThrownBy(() -> retention.purgeTo("binlog.000077", false))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("does not hold it");
      assertThat(retention.purgeTo(name(9), false).removed()).isEqualTo(names(3, 9));
    }
  }

  @Test
  void neverRemovesTheFileBeingWrittenNorTheLastFile() throws Exception {
    try (BinlogStore store = store(SyntheticBinlog.mysql())) {
      assertThat(store.currentFile()).contains(name(FILES - 1));
      Retention retention =
          new Retention(
              store,
              RetentionPolicy.keepEverything()
                  .withMaxFiles(1)
                  .withMaxAge(Duration.ofSeconds(1))
                  .withMaxTotalBytes(1),
              null,
              new ManualTime(Long.MAX_VALUE / 2));
      RetentionRun run = retention.run();
      assertThat(run.removed()).isEqualTo(names(0, FILES - 1));
      assertThat(run.keptUnsafe()).containsExactly(name(FILES - 1));
      assertThat(retention.run().removed()).isEmpty();
      assertThat(store.files()).extracting(FileMetadata::name).containsExactly(name(FILES - 1));
    }
  }

  @Test
  void keepsTheFilesARegisteredReaderNeeds() throws Exception {
    ReaderRegistry registry = new ReaderRegistry();
    try (BinlogStore store = store(SyntheticBinlog.mysql())) {
      Retention retention =
          new Retention(
              store, RetentionPolicy.keepEverything().withMaxFiles(2), registry, new ManualTime(0));
      ReaderRegistry.Registration replica =
          registry.register("replica 2", Position.startOf(name(3)));
      RetentionRun first = retention.run();
      assertThat(first.removed()).isEqualTo(names(0, 3));
      assertThat(first.keptForReaders()).isEqualTo(names(3, 8));
      assertThat(first.forced()).isZero();

      replica.update(new Position(name(6), 100));
      assertThat(retention.run().removed()).isEqualTo(names(3, 6));
      replica.close();
      assertThat(retention.run().removed()).isEqualTo(names(6, 8));
      assertThat(retention.forcedPurges()).isZero();
      assertPurgedIsStartOfOldest(store);
    }
  }

  @Test
  void aForcedPurgeRemovesReadersFilesAndCountsThem() throws Exception {
    ReaderRegistry registry = new ReaderRegistry();
    try (BinlogStore store = store(SyntheticBinlog.mysql())) {
      Retention forcing =
          new Retention(
              store,
              RetentionPolicy.keepEverything().withMaxFiles(2).withPurgeFilesInUse(true),
              registry,
              new ManualTime(0));
      try (BinlogReader reader =
          BinlogReader.open(
              store,
              Position.startOf(name(3)),
              ReaderOptions.defaults().withRegistry(registry).withName("replica 3"))) {
        RetentionRun run = forcing.run();
        assertThat(run.removed()).isEqualTo(names(0, 8));
        assertThat(run.forced()).isEqualTo(5);
        assertThat(forcing.forcedPurges()).isEqualTo(5);
        assertPurgedIsStartOfOldest(store);
        // The reader still has its file open and reads it to the end, then finds the next one gone.
        assertThatThrownBy(
                () -> {
                  for (ReadResult r = reader.poll(); !(r instanceof CaughtUp); r = reader.poll()) {
                    if (r instanceof EventBatch b) {
                      b.close();
                    }
                  }
                })
            .isInstanceOfSatisfying(
                BinlogReadException.class,
                e -> assertThat(e.reason()).isEqualTo(BinlogReadException.Reason.REMOVED));
      }
      Retention manual =
          new Retention(store, RetentionPolicy.keepEverything(), registry, new ManualTime(0));
      registry.register("replica 4", Position.startOf(name(8)));
      assertThat(manual.purgeTo(name(9), false).keptForReaders()).containsExactly(name(8));
      RetentionRun forced = manual.purgeTo(name(9), true);
      assertThat(forced.removed()).containsExactly(name(8));
      assertThat(manual.forcedPurges()).isEqualTo(1);
    }
  }

  @Test
  void withAnArchiveOnlyArchivedFilesGoAndTheRestAreCounted() throws Exception {
    ArchivedFiles archive = new ArchivedFiles(names(0, 4).toArray(String[]::new));
    try (BinlogStore store = store(SyntheticBinlog.mysql())) {
      Retention retention =
          new Retention(
              store,
              RetentionPolicy.keepEverything().withMaxFiles(2),
              null,
              new ManualTime(0),
              ArchiveRules.of(archive));
      RetentionRun run = retention.run();
      assertThat(run.removed()).isEqualTo(names(0, 4));
      assertThat(run.keptUnarchived()).isEqualTo(names(4, 8));
      assertThat(run.removedUnarchived()).isEmpty();
      assertThat(retention.keptUnarchivedFiles()).isEqualTo(4);
      assertPurgedIsStartOfOldest(store);

      assertThat(retention.run().removed()).as("nothing newly archived").isEmpty();
      archive.add(names(4, 9).toArray(String[]::new));
      RetentionRun caughtUp = retention.run();
      assertThat(caughtUp.removed()).isEqualTo(names(4, 8));
      assertThat(caughtUp.keptUnarchived()).isEmpty();
      assertThat(retention.keptUnarchivedFiles()).isZero();
      assertThat(retention.unarchivedPurges()).isZero();
      assertPurgedIsStartOfOldest(store);
    }
  }

  @Test
  void withAnArchiveASlowReaderNoLongerHoldsArchivedFiles() throws Exception {
    ReaderRegistry registry = new ReaderRegistry();
    ArchivedFiles archive = new ArchivedFiles(names(0, 6).toArray(String[]::new));
    try (BinlogStore store = store(SyntheticBinlog.mariadb())) {
      registry.register("slow replica", new Position(name(2), 100));
      Retention pinning =
          new Retention(
              store,
              RetentionPolicy.keepEverything().withMaxFiles(2),
              registry,
              new ManualTime(0),
              ArchiveRules.of(archive).withReadersPinOnlyUnarchived(false));
      RetentionRun held = pinning.run();
      assertThat(held.removed()).isEqualTo(names(0, 2));
      assertThat(held.keptUnarchived()).isEqualTo(names(6, 8));
      assertThat(held.keptForReaders()).isEqualTo(names(2, 6));

      Retention releasing =
          new Retention(
              store,
              RetentionPolicy.keepEverything().withMaxFiles(2),
              registry,
              new ManualTime(0),
              ArchiveRules.of(archive));
      RetentionRun run = releasing.run();
      assertThat(run.removed()).isEqualTo(names(2, 6));
      assertThat(run.keptForReaders()).isEmpty();
      assertThat(run.forced()).isZero();
      assertThat(releasing.forcedPurges()).isZero();
      assertPurgedIsStartOfOldest(store);
    }
  }

  @Test
  void aForcedPurgeKeepsUnarchivedFilesUnlessToldTheyMayBeLost() throws Exception {
    ReaderRegistry registry = new ReaderRegistry();
    ArchivedFiles archive = new ArchivedFiles(name(0), name(1));
    try (BinlogStore store = store(SyntheticBinlog.mysql())) {
      Retention retention =
          new Retention(
              store,
              RetentionPolicy.keepEverything(),
              registry,
              new ManualTime(0),
              ArchiveRules.of(archive));
      RetentionRun forced = retention.purgeTo(name(9), true);
      assertThat(forced.removed()).isEqualTo(names(0, 2));
      assertThat(forced.keptUnarchived()).isEqualTo(names(2, 9));

      registry.register("replica", Position.startOf(name(6)));
      RetentionRun lossy = retention.purgeTo(name(9), false, true);
      assertThat(lossy.removed()).isEqualTo(names(2, 6));
      assertThat(lossy.removedUnarchived()).isEqualTo(names(2, 6));
      assertThat(lossy.keptForReaders()).isEqualTo(names(6, 9));
      assertThat(retention.unarchivedPurges()).isEqualTo(4);
      RetentionRun all = retention.purgeTo(name(9), true, true);
      assertThat(all.removed()).isEqualTo(names(6, 9));
      assertThat(all.removedUnarchived()).isEqualTo(names(6, 9));
      assertThat(all.forced()).isEqualTo(3);
      assertThat(retention.unarchivedPurges()).isEqualTo(7);
      assertThat(store.files()).extracting(FileMetadata::name).containsExactly(name(9));
      assertPurgedIsStartOfOldest(store);
    }
  }

  private BinlogStore store(SyntheticBinlog b) throws Exception {
    return store(b, dir);
  }

  /** Ten files, file i ending at BASE + i hours, two transactions each; the last one open. */
  private static BinlogStore store(SyntheticBinlog b, Path at) throws Exception {
    b.at(BASE).startFile(name(0)).transactions(2);
    for (int i = 1; i < FILES; i++) {
      b.rotateTo(name(i)).at(BASE + i * 3600L).transactions(2);
    }
    BinlogStore store = TestStores.unsynced(at, b.flavor(), b.drain());
    TestStores.settle(store);
    return store;
  }

  private static void assertPurgedIsStartOfOldest(BinlogStore store) {
    assertThat(store.purgedGtids()).isEqualTo(store.files().get(0).gtidsAtStart());
  }

  private static String name(int i) {
    return String.format("binlog.%06d", i + 1);
  }

  private static List<String> names(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(name(i));
    }
    return out;
  }
}
