package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * EIO, injected by wrapping the store's channels ({@link Faults}; the only mock in these tests, the
 * files are real): a write or a force fails from some moment on, as a dying disk's do. The store
 * stops in {@link StoreCondition#IO_ERROR} with the same clean state as on a full disk, {@link
 * BinlogStore#tryResume()} fails while the disk is broken, and once it works again the stream
 * finishes with files equal to the primary's.
 */
class IoErrorTest {
  private static boolean everyFile(String name) {
    return true;
  }

  @TempDir Path tmp;

  static Stream<String> flavors() {
    return Stream.of("mysql", "mariadb");
  }

  private static SourceBinlog source(String flavor) {
    return flavor.equals("mysql") ? SourceBinlog.mysql() : SourceBinlog.mariadb();
  }

  /**
   * Every write of the directory (events, file creations, in-use flags, index, metadata, resume
   * probes) fails from the n-th on, for n spread over the whole stream; the first failing write is
   * torn (half written).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("flavors")
  void aWriteFailsAtAnyPoint(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    int total = count(source, Faults.Op.WRITE, IoErrorTest::everyFile);
    int stride = Math.max(1, total / 40);
    int runs = 0;
    List<String> failedOps = new ArrayList<>();
    for (int n = 1; n <= total; n += stride) {
      Path dir = tmp.resolve("store-" + n);
      Faults faults = new Faults();
      SyncPolicy policy = n % 2 == 0 ? SyncPolicy.off() : SyncPolicy.everyTransaction();
      try (BinlogStore store =
          BinlogStore.open(Stores.config(dir, source).syncPolicy(policy).build(), faults)) {
        faults.failAt(Faults.Op.WRITE, IoErrorTest::everyFile, n);
        Feed feed = new Feed(store, source).start();
        Exception e = feed.appendUntilFailure();
        if (e == null) {
          DiskChecks.settle(store);
        }
        if (store.health().accepting()) {
          continue; // the n-th write came after the last one (a checkpoint on close, say)
        }
        runs++;
        failedOps.add(store.health().lastError().split(" ")[0]);
        checkStopped(store, source, dir, e, feed.durableBefore());
        if (runs % 8 == 1) {
          checkFreshOpen(dir, source, feed.durableBefore(), tmp.resolve("copy-" + n));
        }
        assertThat(store.tryResume()).as("the disk still fails").isFalse();
        StoreHealth h = store.health();
        assertThat(h.condition()).isEqualTo(StoreCondition.IO_ERROR);
        assertThat(h.failedResumes()).isEqualTo(1);
        assertThat(h.lastError()).contains(Resumption.PROBE).contains(Faults.EIO);
        faults.heal();
        assertThat(store.tryResume()).isTrue();
        assertThat(store.health().resumes()).isEqualTo(1);
        assertThat(store.health().ioErrorEvents()).isEqualTo(1);
        assertThat(store.health().diskFullEvents()).isZero();
        feed.start();
        assertThat(feed.appendUntilFailure()).isNull();
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
    assertThat(runs).as("failure points in " + total + " writes").isGreaterThan(30);
    assertThat(failedOps).as("what failed").contains("writing", "creating", "checkpointing");
  }

  /**
   * A force of a binlog file fails (and keeps failing until healed). The syncer stops the store,
   * waits for durability fail, readers keep reading; resuming cuts the store back to the durable
   * boundary (the files after it deleted), since after a failed fsync the disk may hold other bytes
   * than the page cache shows (ext4 leaves them unwritten extents, read back as zeros); appending
   * then continues from there.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("flavors")
  void aForceFailsAndResumingCutsBackToTheDurableBoundary(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    Predicate<String> binlogs = source.files::contains;
    int total = count(source, Faults.Op.FORCE, binlogs);
    for (int n : new int[] {1, 2, Math.max(3, total / 4), Math.max(4, total / 2)}) {
      Path dir = tmp.resolve("store-" + n);
      Faults faults = new Faults();
      StoreConfig config = Stores.config(dir, source).readableWhenDurable(n % 2 == 0).build();
      try (BinlogStore store = BinlogStore.open(config, faults)) {
        faults.failAt(Faults.Op.FORCE, binlogs, n);
        Feed feed = new Feed(store, source).start();
        Exception e = feed.appendUntilFailure();
        DiskChecks.settle(store);
        while (!faults.tripped()) {
          DiskChecks.settle(
              store); // group commit took fewer forces than the count run: force until it trips
        }
        StoreHealth h = store.health();
        assertThat(h.condition()).as("force " + n).isEqualTo(StoreCondition.IO_ERROR);
        assertThat(h.lastError()).contains(Faults.EIO);
        assertThat(store.durable().isStopped()).isTrue();
        CompletableFuture<Position> later =
            store.whenDurable(new Position(source.lastFile(), 1L << 40));
        assertThat(later).isCompletedExceptionally();
        checkStopped(store, source, dir, e, null);
        Position durable = store.durableEnd();

        assertThat(store.tryResume())
            .as("cutting back and forcing fails while the disk is broken")
            .isFalse();
        assertThat(store.health().lastError())
            .containsAnyOf("cutting the store back to the durable boundary", "recovering " + dir);
        faults.heal();
        assertThat(store.tryResume()).isTrue();
        if (durable != null) {
          // nothing after the durable boundary is trusted: the disk may read back other bytes than
          // the page cache
          assertThat(store.durableEnd()).as("cut back to the durable boundary").isEqualTo(durable);
          assertThat(Files.size(dir.resolve(durable.file()))).isEqualTo(durable.offset());
          for (String name : source.files) {
            if (new Position(name, 0).isAfter(durable)) {
              assertThat(dir.resolve(name)).as("a file after the durable boundary").doesNotExist();
            }
          }
        }
        assertThat(store.durable().isStopped()).isFalse();
        if (store.durableEnd() != null) {
          assertThat(store.whenDurable(store.durableEnd())).isCompleted();
        }
        feed.start();
        assertThat(feed.appendUntilFailure()).isNull();
        assertThat(store.sync().join())
            .isEqualTo(new Position(source.lastFile(), source.bytes.get(source.lastFile()).length));
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  /**
   * A metadata file's temporary copy fails to write: no temporary file is left, the old one is
   * whole.
   */
  @Test
  void aFailedAtomicWriteLeavesNoTemporaryFile() throws Exception {
    SourceBinlog source = SourceBinlog.mariadb();
    Path dir = tmp.resolve("store");
    Faults faults = new Faults();
    try (BinlogStore store =
        BinlogStore.open(Stores.config(dir, source).checkpointBytes(1).build(), faults)) {
      Feed feed = new Feed(store, source).start();
      for (int i = 0; i < 20; i++) {
        feed.append();
      }
      store.sync().join();
      String meta = MetadataFile.nameFor(store.currentFile().orElseThrow());
      byte[] before = Files.readAllBytes(dir.resolve(meta));
      faults.failAt(
          Faults.Op.WRITE,
          name -> name.endsWith(MetadataFile.SUFFIX + StoreDirectory.TEMP_SUFFIX),
          1);
      while (!feed.append().completedTransaction()) {
        // up to the next boundary, where a checkpoint is taken (checkpointBytes 1)
      }
      assertThatThrownBy(() -> store.sync().join()).hasRootCauseMessage(Faults.EIO);
      assertThat(dir.resolve(meta + StoreDirectory.TEMP_SUFFIX)).doesNotExist();
      assertThat(Files.readAllBytes(dir.resolve(meta))).as("the old checkpoint").isEqualTo(before);
      Exception e = feed.appendUntilFailure();
      assertThat(e).isInstanceOf(StoreUnavailableException.class);
      assertThat(((StoreUnavailableException) e).condition()).isEqualTo(StoreCondition.IO_ERROR);
      assertThat(e.getMessage())
          .contains("hit an I/O error: checkpointing")
          .contains(Faults.EIO)
          .contains("Check the disk under " + dir);
      checkStopped(store, source, dir, e, feed.durableBefore());
      faults.heal();
      assertThat(store.tryResume()).isTrue();
      feed.start();
      assertThat(feed.appendUntilFailure()).isNull();
    }
    DiskChecks.assertEqualsSource(dir, source);
  }

  /**
   * How many writes or forces of {@code files} the whole stream takes (with sync(), before close),
   * no fault.
   */
  private int count(SourceBinlog source, Faults.Op op, Predicate<String> files) throws IOException {
    Faults faults = new Faults();
    Path dir = tmp.resolve("count-" + op);
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build(), faults)) {
      faults.failAt(op, files, Integer.MAX_VALUE);
      assertThat(new Feed(store, source).start().appendUntilFailure()).isNull();
      store.sync().join();
      return faults.seen();
    }
  }

  private static void checkStopped(
      BinlogStore store, SourceBinlog source, Path dir, Exception e, Position durableBefore)
      throws IOException {
    StoreHealth h = store.health();
    assertThat(h.condition()).as("stopped by " + e).isEqualTo(StoreCondition.IO_ERROR);
    assertThat(h.lastError()).contains(Faults.EIO);
    if (e != null) {
      assertThat(e).isInstanceOfAny(IOException.class, StoreUnavailableException.class);
      assertThat(e.getMessage())
          .contains("binlog store " + dir)
          .contains(Faults.EIO)
          .contains("Check the disk under " + dir);
    }
    assertThatThrownBy(store::startStream).isInstanceOf(StoreUnavailableException.class);
    assertThat(store.failure()).isPresent();
    DiskChecks.settle(store);
    Position onDisk = DiskChecks.assertCleanPrefix(dir, source);
    if (durableBefore != null && onDisk != null) {
      assertThat(onDisk)
          .as("everything durable before the error is kept")
          .isGreaterThanOrEqualTo(durableBefore);
    }
    Position readable = store.readableEnd();
    if (readable != null) {
      assertThat(onDisk).as("everything readable is kept").isGreaterThanOrEqualTo(readable);
    }
    DiskChecks.assertReadable(store, source);
  }

  private static void checkFreshOpen(
      Path dir, SourceBinlog source, Position durableBefore, Path copy) throws IOException {
    Stores.copyDirectory(dir, copy);
    try (BinlogStore reopened = BinlogStore.open(Stores.config(copy, source).build())) {
      Position end = reopened.readableEnd();
      if (durableBefore != null) {
        assertThat(end).isGreaterThanOrEqualTo(durableBefore);
      }
      if (end != null) {
        Stores.assertPrefixOfSource(copy, source, end, reopened.currentFile().isPresent());
      }
    }
  }
}
