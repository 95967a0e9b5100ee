package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store opened on a directory that takes no writes (a real full tmpfs, root needed as for {@link
 * DiskFullTest}; EIO through {@link Faults}) opens anyway, not accepting writes: recovery finds the
 * state by reading alone and changes nothing on disk (so a kill at any moment while it waits leaves
 * the directory as it was), readers are served the complete transactions and never a torn tail (cut
 * in the state at once, on disk once writes work), and {@link BinlogStore#tryResume()} or a later
 * open makes the deferred repairs and lets the stream continue to files equal to the primary's byte
 * for byte.
 */
class OpenOnFullDiskTest {
  private static final long SMALL = 512 << 10;

  @TempDir Path tmp;

  private static SourceBinlog source(String flavor) {
    return flavor.equals("mysql") ? SourceBinlog.mysql() : SourceBinlog.mariadb();
  }

  /** A transaction boundary in the middle of the source's last file. */
  private static Position middleOfLastFile(SourceBinlog source) {
    NavigableMap<Long, ?> b = source.boundariesOf(source.lastFile());
    List<Long> offsets = List.copyOf(b.keySet());
    return new Position(source.lastFile(), offsets.get(offsets.size() / 2));
  }

  @ParameterizedTest
  @ValueSource(strings = {"mysql", "mariadb"})
  void opensNotAcceptingOnAFullDiskServesWhatItHoldsAndResumes(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    Position end = middleOfLastFile(source);
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("fs"), SMALL)) {
      Path dir = fs.path().resolve("store");
      storeUpTo(dir, source, end);
      Map<String, String> before = contents(dir);
      fs.fill();
      try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
        StoreHealth health = store.health();
        assertThat(health.condition()).isEqualTo(StoreCondition.DISK_FULL);
        assertThat(health.diskFullEvents()).isEqualTo(1);
        assertThat(health.lastError())
            .contains("(a probe) on opening the store failed")
            .contains("No space left on device");
        assertThat(store.failure()).isPresent();
        assertThat(store.readableEnd()).isEqualTo(end);
        assertThat(store.executedGtids()).isEqualTo(Stores.sourceGtidsAt(source, end));
        assertThat(store.files()).extracting(FileMetadata::name).isEqualTo(source.files);
        assertThat(store.recoveryReport().nextUpstreamPosition()).isEqualTo(end);
        DiskChecks.assertReadable(store, source);
        assertThatThrownBy(store::startStream)
            .isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("is out of space")
            .hasMessageContaining("leaves its repairs on disk")
            .hasMessageContaining("Free space in " + dir);
        assertThat(store.tryResume()).as("nothing freed yet").isFalse();
        assertThat(store.tryResume()).isFalse();
        assertThat(store.health().failedResumes()).isEqualTo(2);
        assertThat(contents(dir))
            .as("nothing on disk changed while the store waited")
            .isEqualTo(before);

        fs.free(fs.fillerPages());
        assertThat(store.tryResume()).isTrue();
        assertThat(store.health().accepting()).isTrue();
        assertThat(store.readableEnd()).isEqualTo(end);
        Stores.appendFrom(store, source);
        assertThat(store.executedGtids()).isEqualTo(source.expectedFinalGtids());
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  /**
   * A torn transaction at the end of the tail: cut in the state at open (readers stop before it),
   * on disk only once writes work. Opening it again while the disk is still full (a relay killed
   * while it waited and started again) finds the same state, since the first open wrote nothing.
   */
  @ParameterizedTest
  @ValueSource(strings = {"mysql", "mariadb"})
  void aTornTailIsCutInTheStateAtOnceAndOnDiskOnceSpaceReturns(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    Position end = middleOfLastFile(source);
    String last = end.file();
    long next = source.boundariesOf(last).higherKey(end.offset());
    long torn = end.offset() + (next - end.offset()) / 2;
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("fs"), SMALL)) {
      Path dir = fs.path().resolve("store");
      storeUpTo(dir, source, end);
      appendRaw(dir.resolve(last), source.bytes.get(last), end.offset(), torn);
      Map<String, String> before = contents(dir);
      fs.fill();
      BinlogStore waiting = BinlogStore.open(Stores.config(dir, source).build());
      try {
        checkTornTailCutInState(waiting, source, end, torn);
        assertThat(Files.size(dir.resolve(last)))
            .as("not cut on disk while it is full")
            .isEqualTo(torn);
        try (BinlogStore restarted = BinlogStore.open(Stores.config(dir, source).build())) {
          checkTornTailCutInState(restarted, source, end, torn);
        }
        assertThat(contents(dir)).as("nothing on disk changed").isEqualTo(before);

        fs.free(fs.fillerPages());
        assertThat(waiting.tryResume()).isTrue();
        assertThat(Files.size(dir.resolve(last)))
            .as("cut on disk once space returned")
            .isEqualTo(end.offset());
        assertThat(waiting.startStream()).contains(end);
        Stores.appendFrom(waiting, source);
        assertThat(waiting.executedGtids()).isEqualTo(source.expectedFinalGtids());
      } finally {
        waiting.close();
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  /**
   * The same torn tail, and the store never resumed but opened again once space returned (a
   * restart).
   */
  @ParameterizedTest
  @ValueSource(strings = {"mysql", "mariadb"})
  void aStoreOpenedAgainOnceSpaceReturnedMakesTheDeferredRepairs(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    Position end = middleOfLastFile(source);
    String last = end.file();
    long torn =
        end.offset() + (source.boundariesOf(last).higherKey(end.offset()) - end.offset()) / 2;
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("fs"), SMALL)) {
      Path dir = fs.path().resolve("store");
      storeUpTo(dir, source, end);
      appendRaw(dir.resolve(last), source.bytes.get(last), end.offset(), torn);
      fs.fill();
      BinlogStore abandoned = BinlogStore.open(Stores.config(dir, source).build());
      checkTornTailCutInState(abandoned, source, end, torn);
      fs.free(fs.fillerPages());
      try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
        assertThat(store.health().accepting()).isTrue();
        assertThat(store.recoveryReport().truncations())
            .singleElement()
            .satisfies(t -> assertThat(t.offset()).isEqualTo(end.offset()));
        assertThat(Files.size(dir.resolve(last))).isEqualTo(end.offset());
        Stores.appendFrom(store, source);
      } finally {
        abandoned.close(); // wrote nothing, writes nothing
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  /**
   * EIO on every write at open (a dying disk): IO_ERROR, the same state from reads, resumes once
   * healed.
   */
  @ParameterizedTest
  @ValueSource(strings = {"mysql", "mariadb"})
  void opensNotAcceptingWhenEveryWriteFails(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    Position end = middleOfLastFile(source);
    Path dir = tmp.resolve("store");
    storeUpTo(dir, source, end);
    Map<String, String> before = contents(dir);
    Faults faults = new Faults().failAt(Faults.Op.WRITE, name -> true, 1);
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build(), faults)) {
      assertThat(store.health().condition()).isEqualTo(StoreCondition.IO_ERROR);
      assertThat(store.health().lastError()).contains(Faults.EIO);
      assertThat(store.readableEnd()).isEqualTo(end);
      assertThat(store.executedGtids()).isEqualTo(Stores.sourceGtidsAt(source, end));
      DiskChecks.assertReadable(store, source);
      assertThat(store.tryResume()).isFalse();
      assertThat(contents(dir)).isEqualTo(before);
      faults.heal();
      assertThat(store.tryResume()).isTrue();
      Stores.appendFrom(store, source);
    }
    DiskChecks.assertEqualsSource(dir, source);
  }

  /**
   * The probe works but a write of recovery's own fails (the disk filled up meanwhile): recovery
   * starts over without writing, and the store opens not accepting writes, exactly as after a
   * failed probe.
   */
  @ParameterizedTest
  @ValueSource(strings = {"mysql", "mariadb"})
  void aRecoveryWhoseWriteFailsStartsOverWithoutWriting(String flavor) throws Exception {
    SourceBinlog source = source(flavor);
    Position end = middleOfLastFile(source);
    Path dir = tmp.resolve("store");
    storeUpTo(dir, source, end);
    Faults faults =
        new Faults()
            .failAt(
                Faults.Op.WRITE,
                name -> name.endsWith(MetadataFile.SUFFIX + StoreDirectory.TEMP_SUFFIX),
                1);
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build(), faults)) {
      assertThat(store.health().condition()).isEqualTo(StoreCondition.IO_ERROR);
      assertThat(store.health().lastError()).contains("recovering the store on opening it failed");
      assertThat(store.readableEnd()).isEqualTo(end);
      assertThat(store.executedGtids()).isEqualTo(Stores.sourceGtidsAt(source, end));
      try (var files = Files.list(dir)) {
        assertThat(files).noneMatch(p -> p.toString().endsWith(StoreDirectory.TEMP_SUFFIX));
      }
      faults.heal();
      assertThat(store.tryResume()).isTrue();
      Stores.appendFrom(store, source);
    }
    DiskChecks.assertEqualsSource(dir, source);
  }

  /**
   * What a crash can leave for recovery to repair (see {@link RecoveryTest}), one damage at a time.
   */
  enum Damage {
    TORN_TAIL,
    MAGIC_ONLY_TAIL,
    UNINDEXED_LAST_FILE,
    DAMAGED_CLOSED_METADATA,
    TEMPORARY_LEFTOVER
  }

  /**
   * Whatever recovery would repair, the state found from reads alone (every write failing) is the
   * state a writing recovery of a copy leaves, nothing on disk changes, and once writes work the
   * store resumes to the primary's files.
   */
  @ParameterizedTest
  @EnumSource(Damage.class)
  void theStateFoundByReadingIsTheStateAWritingRecoveryLeaves(Damage damage) throws Exception {
    for (SourceBinlog source : SourceBinlog.all()) {
      Path dir = tmp.resolve(damage + "-" + source.directory);
      Stores.fill(dir, source);
      damage(dir, source, damage);
      Path copy = tmp.resolve(damage + "-" + source.directory + "-copy");
      Stores.copyDirectory(dir, copy);
      Map<String, String> before = contents(dir);
      Faults faults = new Faults().failAt(Faults.Op.WRITE, name -> true, 1);
      try (BinlogStore reading = BinlogStore.open(Stores.config(dir, source).build(), faults);
          BinlogStore writing = BinlogStore.open(Stores.config(copy, source).build())) {
        assertThat(reading.health().accepting()).isFalse();
        assertThat(writing.health().accepting()).isTrue();
        assertThat(writing.recoveryReport().clean()).as(damage + " needs a repair").isFalse();
        assertThat(reading.readableSnapshot()).isEqualTo(writing.readableSnapshot());
        assertThat(reading.files()).isEqualTo(writing.files());
        assertThat(reading.recoveryReport().nextUpstreamPosition())
            .isEqualTo(writing.recoveryReport().nextUpstreamPosition());
        assertThat(reading.recoveryReport().truncations())
            .isEqualTo(writing.recoveryReport().truncations());
        assertThat(reading.purgedGtids()).isEqualTo(writing.purgedGtids());
        DiskChecks.assertReadable(reading, source);
        assertThat(contents(dir)).as(damage + ": nothing on disk changed").isEqualTo(before);
        faults.heal();
        assertThat(reading.tryResume()).isTrue();
        Stores.appendFrom(reading, source);
      }
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  private static void damage(Path dir, SourceBinlog source, Damage damage) throws IOException {
    String last = source.lastFile();
    String index = BinlogIndex.nameFor(source.files.get(0));
    switch (damage) {
      case TORN_TAIL -> {
        long end = source.boundariesOf(last).lastKey();
        long cut = source.boundariesOf(last).lowerKey(end);
        try (FileChannel ch = FileChannel.open(dir.resolve(last), StandardOpenOption.WRITE)) {
          ch.truncate(cut + (end - cut) / 2);
        }
        Files.delete(dir.resolve(MetadataFile.nameFor(last)));
      }
      case MAGIC_ONLY_TAIL -> {
        try (FileChannel ch = FileChannel.open(dir.resolve(last), StandardOpenOption.WRITE)) {
          ch.truncate(4);
        }
        Files.delete(dir.resolve(MetadataFile.nameFor(last)));
      }
      case UNINDEXED_LAST_FILE -> {
        List<String> lines = Files.readAllLines(dir.resolve(index));
        Files.write(dir.resolve(index), lines.subList(0, lines.size() - 1));
      }
      case DAMAGED_CLOSED_METADATA -> {
        Path meta = dir.resolve(MetadataFile.nameFor(source.files.get(0)));
        byte[] b = Files.readAllBytes(meta);
        b[b.length / 2] ^= 1;
        Files.write(meta, b);
      }
      case TEMPORARY_LEFTOVER ->
          Files.writeString(dir.resolve(index + StoreDirectory.TEMP_SUFFIX), "./x\n");
      default -> throw new IllegalArgumentException(damage.toString());
    }
  }

  private static void checkTornTailCutInState(
      BinlogStore store, SourceBinlog source, Position end, long torn) throws IOException {
    assertThat(store.health().condition()).isEqualTo(StoreCondition.DISK_FULL);
    assertThat(store.recoveryReport().truncations())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.file()).isEqualTo(end.file());
              assertThat(t.offset()).isEqualTo(end.offset());
              assertThat(t.bytes()).isEqualTo(torn - end.offset());
            });
    assertThat(store.readableEnd()).isEqualTo(end);
    assertThat(store.readableLength(end.file()))
        .as("nothing served past the last complete transaction")
        .isEqualTo(end.offset());
    assertThat(store.file(end.file()).orElseThrow().size()).isEqualTo(end.offset());
    assertThat(store.executedGtids()).isEqualTo(Stores.sourceGtidsAt(source, end));
    assertThat(store.verify(end.file()).ok()).isTrue();
    DiskChecks.assertReadable(store, source);
  }

  /**
   * Streams the source into a new store in {@code dir} up to {@code end} (a boundary) and closes
   * it.
   */
  private static void storeUpTo(Path dir, SourceBinlog source, Position end) throws IOException {
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      Feed feed = new Feed(store, source).start();
      while (!end.equals(store.readableEnd())) {
        feed.append();
      }
    }
  }

  private static void appendRaw(Path file, byte[] bytes, long from, long to) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(bytes, (int) from, (int) (to - from)), from);
    }
  }

  /** Every file in {@code dir} by name, with a SHA-256 of its bytes. */
  private static Map<String, String> contents(Path dir) throws IOException {
    Map<String, String> digests = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        digests.put(
            f.getFileName().toString(), HexFormat.of().formatHex(sha256(Files.readAllBytes(f))));
      }
    }
    return digests;
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
