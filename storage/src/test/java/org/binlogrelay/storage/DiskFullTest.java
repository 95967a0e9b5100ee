package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.binlogrelay.protocol.event.EventType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A store on a real, really full filesystem: a small tmpfs mounted for the test (root needed, as in
 * CI; a failed mount fails the test). Whatever runs out of space (an event's write, a file's
 * creation, the index or a metadata file), the store stops in {@link StoreCondition#DISK_FULL} with
 * an error saying what to do, the files on disk are exact prefixes of the primary's ending at
 * transaction boundaries (also for a fresh {@link BinlogStore#open} of a copy), readers keep
 * reading, and once space is freed {@link BinlogStore#tryResume()} lets the stream continue to
 * files equal to the primary's byte for byte.
 */
class DiskFullTest {
  private static final long SMALL = 512 << 10;

  /** What ran out of space over all runs of {@link #fillsUpAgainAndAgainAndResumesEachTime}. */
  private static final Set<String> KINDS = new TreeSet<>();

  private static int runs;

  @TempDir Path tmp;

  @AfterAll
  static void everyKindOfWriteRanOutOfSpace() {
    synchronized (KINDS) {
      if (runs == cases().count()) {
        assertThat(KINDS)
            .as("operations that ran out of space in " + runs + " runs")
            .contains("writing", "creating", "rewriting", "checkpointing", "closing");
      }
    }
  }

  /**
   * Both flavours, readable when written or when durable, rare or frequent checkpoints; 5 seeds
   * each.
   */
  static Stream<Arguments> cases() {
    return Stream.of(
            Arguments.of("mysql", false, StoreConfig.DEFAULT_CHECKPOINT_BYTES),
            Arguments.of("mysql", true, 1024L),
            Arguments.of("mariadb", false, 1024L),
            Arguments.of("mariadb", true, StoreConfig.DEFAULT_CHECKPOINT_BYTES))
        .flatMap(
            a ->
                Stream.of(1L, 2L, 3L, 4L, 5L)
                    .map(seed -> Arguments.of(a.get()[0], a.get()[1], a.get()[2], seed)));
  }

  private static SourceBinlog source(String flavor) {
    return flavor.equals("mysql") ? SourceBinlog.mysql() : SourceBinlog.mariadb();
  }

  /**
   * The disk fills up again and again: after each resume that made progress it is filled again,
   * leaving no or one free page, so the store runs out of space at many different moments (writes
   * of events, torn writes of the 200 KB row event, creation of files, index and metadata writes).
   * Pages are freed a few at a time until {@link BinlogStore#tryResume()} works (its probe needs
   * the event that failed to fit).
   */
  @ParameterizedTest(name = "{0}, readable when durable {1}, checkpoint every {2} bytes, seed {3}")
  @MethodSource("cases")
  void fillsUpAgainAndAgainAndResumesEachTime(
      String flavor, boolean readableWhenDurable, long checkpointBytes, long seed)
      throws Exception {
    SourceBinlog source = source(flavor);
    Random random = new Random(seed);
    List<Throwable> heard = new CopyOnWriteArrayList<>();
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("fs"), SMALL)) {
      Path dir = fs.path().resolve("store");
      StoreConfig config =
          Stores.config(dir, source)
              .readableWhenDurable(readableWhenDurable)
              .checkpointBytes(checkpointBytes)
              .build();
      int stops = 0;
      Position lastEnd = null;
      Set<String> kinds = new TreeSet<>();
      try (BinlogStore store = BinlogStore.open(config)) {
        store.addListener(
            new StoreListener() {
              @Override
              public void failed(Throwable cause) {
                heard.add(cause);
              }
            });
        fs.leaveFree(2);
        Feed feed = new Feed(store, source).start();
        while (true) {
          Exception e = feed.appendUntilFailure();
          if (e == null) {
            DiskChecks.settle(store); // the syncer may still run out of space on the last writes
            if (store.health().accepting()) {
              break;
            }
          }
          stops++;
          checkStopped(store, source, dir, e, feed.durableBefore());
          if (stops % 5 == 1) {
            checkFreshOpen(dir, source, feed.durableBefore(), tmp.resolve("copy-" + stops));
          }
          String what = store.health().lastError();
          kinds.add(what.substring(0, what.indexOf(' ')));
          Position end = DiskChecks.assertCleanPrefix(dir, source);
          boolean progress = !end.equals(lastEnd);
          lastEnd = end;
          resumeByFreeing(store, fs, random);
          feed.start();
          if (progress) {
            fs.leaveFree(random.nextInt(2)); // the next page the store needs runs out
          }
          assertThat(stops).as("stops before the stream got through").isLessThan(1000);
        }
        assertThat(stops)
            .as("the disk filled up several times (" + kinds + ")")
            .isGreaterThanOrEqualTo(3);
        assertThat(kinds).as("what ran out of space").contains("writing");
        synchronized (KINDS) {
          KINDS.addAll(kinds);
          runs++;
        }
        StoreHealth h = store.health();
        assertThat(h.diskFullEvents()).isEqualTo(stops);
        assertThat(h.resumes()).isEqualTo(stops);
        assertThat(h.ioErrorEvents()).isZero();
        assertThat(heard).hasSize(stops);
      }
      DiskChecks.assertEqualsSource(dir, source);
      assertVerifies(dir, source);
    }
  }

  /**
   * Growing the filesystem (mount -o remount,size=...) clears the condition as well as deleting
   * files.
   */
  @Test
  void remountingBiggerLetsTheStoreResume() throws Exception {
    SourceBinlog source = SourceBinlog.mysql();
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("fs"), 64 << 10)) {
      Path dir = fs.path().resolve("store");
      try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
        Feed feed = new Feed(store, source).start();
        Exception e = feed.appendUntilFailure();
        assertThat(e).as("64 KiB cannot hold the 200 KB row").isInstanceOf(IOException.class);
        assertThat(feed.peek().length()).isGreaterThan(200_000);
        checkStopped(store, source, dir, e, feed.durableBefore());
        assertThat(store.tryResume())
            .as("the probe is as big as the event that did not fit")
            .isFalse();
        fs.remount(1 << 20);
        assertThat(store.tryResume()).isTrue();
        feed.start();
        assertThat(feed.appendUntilFailure()).isNull();
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  /**
   * Rotation on a full disk: the next file cannot even get its magic number. It is removed again,
   * the index is untouched, and after freeing space the primary's stream continues with that file.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("flavors")
  void creatingTheNextFileOnAFullDisk(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    String first = source.files.get(0);
    String second = source.files.get(1);
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("fs"), SMALL)) {
      Path dir = fs.path().resolve("store");
      try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
        Feed feed = new Feed(store, source).start();
        appendWholeFile(feed, source, first);
        store.sync().join(); // the old file's close (flag, force, metadata) is done
        byte[] index = Files.readAllBytes(dir.resolve(BinlogIndex.nameFor(first)));
        fs.fill();
        feed.append(); // the artificial ROTATE naming the new file
        assertThat(feed.peek().type()).isEqualTo(EventType.FORMAT_DESCRIPTION);
        assertThatThrownBy(feed::append)
            .isInstanceOf(IOException.class)
            .hasMessageContaining("is out of space: creating " + second)
            .hasMessageContaining("No space left on device")
            .hasMessageContaining("Free space in " + dir);
        assertThat(dir.resolve(second)).doesNotExist();
        assertThat(Files.readAllBytes(dir.resolve(BinlogIndex.nameFor(first)))).isEqualTo(index);
        assertThat(DiskChecks.assertCleanPrefix(dir, source))
            .isEqualTo(new Position(first, source.bytes.get(first).length));
        assertThat(store.health().condition()).isEqualTo(StoreCondition.DISK_FULL);
        assertThat(store.tryResume()).as("nothing freed yet").isFalse();
        assertThat(store.health().failedResumes()).isEqualTo(1);
        assertThat(store.health().lastError()).contains("No space left on device");
        fs.free(8);
        assertThat(store.tryResume()).isTrue();
        assertThat(store.startStream())
            .as("after its STOP, the primary's next file follows")
            .contains(new Position(first, source.bytes.get(first).length));
        fs.free(fs.fillerPages());
        feed.start();
        assertThat(feed.appendUntilFailure()).isNull();
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  /**
   * The new file fits in the last free page, the index rewrite listing it does not: the syncer
   * stops the store, the old index stays whole and no temporary file is left; recovery in place
   * lists the file.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("flavors")
  void rewritingTheIndexOnAFullDisk(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    String first = source.files.get(0);
    String second = source.files.get(1);
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("fs"), SMALL)) {
      Path dir = fs.path().resolve("store");
      try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
        Feed feed = new Feed(store, source).start();
        appendWholeFile(feed, source, first);
        store.sync().join();
        byte[] index = Files.readAllBytes(dir.resolve(BinlogIndex.nameFor(first)));
        fs.leaveFree(1);
        feed.append(); // artificial ROTATE
        feed.append(); // FORMAT_DESCRIPTION: the new file takes the last page
        assertThatThrownBy(() -> store.sync().join())
            .isInstanceOf(CompletionException.class)
            .hasRootCauseMessage("No space left on device");
        StoreHealth h = store.health();
        assertThat(h.condition()).isEqualTo(StoreCondition.DISK_FULL);
        assertThat(h.lastError()).contains("rewriting the index to list " + second);
        assertThat(store.durable().isStopped()).isTrue();
        assertThatThrownBy(feed::append)
            .isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("does not accept writes (DISK_FULL since")
            .hasMessageContaining("Free space in " + dir);
        assertThat(Files.readAllBytes(dir.resolve(BinlogIndex.nameFor(first)))).isEqualTo(index);
        DiskChecks.assertCleanPrefix(dir, source);
        fs.free(8);
        assertThat(store.tryResume()).isTrue();
        assertThat(store.durable().isStopped()).isFalse();
        assertThat(
                BinlogIndex.decode(
                    Files.readAllBytes(dir.resolve(BinlogIndex.nameFor(first))), "index"))
            .containsExactly(first, second);
        fs.free(fs.fillerPages());
        feed.start();
        assertThat(feed.appendUntilFailure()).isNull();
        assertThat(store.sync().join())
            .isEqualTo(new Position(source.lastFile(), source.bytes.get(source.lastFile()).length));
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  /**
   * A transaction fits in the open file's last page, its checkpoint's metadata file does not: the
   * old metadata stays whole, no temporary file is left, and the store resumes from the transaction
   * boundary.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("flavors")
  void writingACheckpointOnAFullDisk(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    String first = source.files.get(0);
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("fs"), SMALL)) {
      Path dir = fs.path().resolve("store");
      StoreConfig config = Stores.config(dir, source).checkpointBytes(1).build();
      try (BinlogStore store = BinlogStore.open(config)) {
        Feed feed = new Feed(store, source).start();
        long boundary = appendToBoundaryBeforeOneInTheSamePage(feed, source, first);
        store.sync().join();
        byte[] meta = Files.readAllBytes(dir.resolve(MetadataFile.nameFor(first)));
        fs.fill();
        Position end = appendTransaction(feed);
        assertThat(end.offset() / Tmpfs.PAGE)
            .as("in the same page")
            .isEqualTo(boundary / Tmpfs.PAGE);
        assertThatThrownBy(() -> store.sync().join()).isInstanceOf(CompletionException.class);
        StoreHealth h = store.health();
        assertThat(h.condition()).isEqualTo(StoreCondition.DISK_FULL);
        assertThat(h.lastError())
            .contains("checkpointing " + first)
            .contains("No space left on device");
        assertThat(Files.readAllBytes(dir.resolve(MetadataFile.nameFor(first))))
            .as("the old checkpoint")
            .isEqualTo(meta);
        assertThat(DiskChecks.assertCleanPrefix(dir, source)).isEqualTo(end);
        fs.free(8);
        assertThat(store.tryResume()).isTrue();
        assertThat(store.startStream()).contains(end);
        fs.free(fs.fillerPages());
        feed.start();
        assertThat(feed.appendUntilFailure()).isNull();
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  /**
   * The file's last event (STOP in the fixtures) fits, the closed file's metadata does not:
   * recovery in place closes the file (it scans it) and listeners hear that it closed.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("flavors")
  void closingAFileOnAFullDisk(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    String first = source.files.get(0);
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("fs"), SMALL)) {
      Path dir = fs.path().resolve("store");
      List<String> closed = new CopyOnWriteArrayList<>();
      try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
        store.addListener(
            new StoreListener() {
              @Override
              public void fileClosed(FileMetadata metadata) {
                closed.add(metadata.name());
              }
            });
        Feed feed = new Feed(store, source).start();
        appendUpToLastEventOf(feed, source, first);
        store.sync().join();
        fs.fill();
        feed.append(); // the file's last event fits in its last page
        assertThatThrownBy(() -> store.sync().join()).isInstanceOf(CompletionException.class);
        assertThat(store.health().lastError()).contains("closing " + first);
        assertThat(closed).isEmpty();
        assertThat(dir.resolve(MetadataFile.nameFor(first) + StoreDirectory.TEMP_SUFFIX))
            .doesNotExist();
        DiskChecks.assertCleanPrefix(dir, source);
        fs.free(4);
        assertThat(store.tryResume()).isTrue();
        assertThat(closed).containsExactly(first);
        assertThat(store.file(first).orElseThrow().closed()).isTrue();
        fs.free(fs.fillerPages());
        feed.start();
        assertThat(feed.appendUntilFailure()).isNull();
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  static Stream<String> flavors() {
    return Stream.of("mysql", "mariadb");
  }

  /** What a store must look like right after it ran out of space. */
  private static void checkStopped(
      BinlogStore store, SourceBinlog source, Path dir, Exception e, Position durableBefore)
      throws IOException {
    StoreHealth h = store.health();
    assertThat(h.condition()).as("stopped by " + e).isEqualTo(StoreCondition.DISK_FULL);
    assertThat(h.lastError()).contains("No space left on device");
    if (e != null) {
      assertThat(e).isInstanceOfAny(IOException.class, StoreUnavailableException.class);
      assertThat(e.getMessage())
          .contains(dir.toString())
          .contains("Free space in " + dir)
          .contains("No space left on device");
    }
    assertThatThrownBy(store::startStream)
        .isInstanceOf(StoreUnavailableException.class)
        .satisfies(
            x ->
                assertThat(((StoreUnavailableException) x).condition())
                    .isEqualTo(StoreCondition.DISK_FULL));
    assertThat(store.failure()).isPresent();
    DiskChecks.settle(store);
    Position onDisk = DiskChecks.assertCleanPrefix(dir, source);
    if (durableBefore != null) {
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

  /** A copy of the directory off the tmpfs, opened afresh: recovery keeps what was durable. */
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

  /** Frees a few pages at a time until {@link BinlogStore#tryResume()} succeeds. */
  private static void resumeByFreeing(BinlogStore store, Tmpfs fs, Random random) {
    long failedBefore = store.health().failedResumes();
    int attempts = 0;
    while (true) {
      fs.free(1 + random.nextInt(5));
      attempts++;
      if (store.tryResume()) {
        break;
      }
      assertThat(store.health().condition()).isEqualTo(StoreCondition.DISK_FULL);
      assertThat(fs.fillerPages())
          .as(
              "tryResume keeps failing although all filler was freed: "
                  + store.health().lastError())
          .isPositive();
    }
    assertThat(store.health().accepting()).isTrue();
    assertThat(store.failure()).isEmpty();
    assertThat(store.health().failedResumes()).isEqualTo(failedBefore + attempts - 1);
  }

  /** Appends every event before the last one of {@code file} (a STOP or ROTATE in the fixtures). */
  private static void appendUpToLastEventOf(Feed feed, SourceBinlog source, String file)
      throws IOException {
    byte[] bytes = source.bytes.get(file);
    long last = Stores.eventContaining(source, file, bytes.length - 1);
    while (!(feed.peek().buffer() == bytes && feed.peek().offset() == last)) {
      feed.append();
    }
  }

  /** Appends the rest of {@code file}, which the store then closes. */
  private static void appendWholeFile(Feed feed, SourceBinlog source, String file)
      throws IOException {
    appendUpToLastEventOf(feed, source, file);
    feed.append();
    assertThat(feed.peek().type())
        .as("next: the artificial ROTATE of the next file")
        .isEqualTo(EventType.ROTATE);
  }

  /**
   * Appends whole transactions of {@code file} up to a boundary after which the next transaction
   * ends in the same 4 KiB page (so it needs no new page); returns that boundary.
   */
  private static long appendToBoundaryBeforeOneInTheSamePage(
      Feed feed, SourceBinlog source, String file) throws IOException {
    while (true) {
      Position at = appendTransaction(feed);
      Long next = source.boundariesOf(file).higherKey(at.offset());
      assertThat(next)
          .as("a transaction of " + file + " that ends in the page it starts in")
          .isNotNull();
      if (at.offset() > 300
          && at.offset() % Tmpfs.PAGE != 0
          && next / Tmpfs.PAGE == at.offset() / Tmpfs.PAGE) {
        return at.offset();
      }
    }
  }

  /** Appends events up to the next transaction boundary in the open file; returns it. */
  private static Position appendTransaction(Feed feed) throws IOException {
    while (true) {
      Appended a = feed.append();
      if (a.written() && a.completedTransaction()) {
        return a.position();
      }
    }
  }

  private static void assertVerifies(Path dir, SourceBinlog source) throws IOException {
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      assertThat(store.recoveryReport().truncations()).isEmpty();
      for (String f : source.files) {
        assertThat(store.verify(f).ok()).as("verify " + f).isTrue();
      }
    }
  }
}
