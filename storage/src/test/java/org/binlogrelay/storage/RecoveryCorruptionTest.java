package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Random;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.testing.RandomCases;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's {@code testRecoveryWithCorruptMessage} for binlogs: damage the tail of a real stored
 * binlog at random (truncation, byte flips, both; with and without a checkpoint), recover, and
 * check that recovery cut at the last transaction boundary before the first damaged event, said so,
 * rebuilt the GTID set, and that appending resumes to a byte-identical copy.
 */
class RecoveryCorruptionTest {
  private static final long IN_USE_BYTE = BinlogFile.IN_USE_FLAG_OFFSET;

  @TempDir static Path shared;

  private static final List<SourceBinlog> SOURCES = new ArrayList<>();
  private static final List<Path> BASELINES = new ArrayList<>();

  @BeforeAll
  static void baselines() throws IOException {
    for (SourceBinlog source : SourceBinlog.all()) {
      Path base = shared.resolve("baseline-" + source.directory);
      Stores.fill(base, source);
      SOURCES.add(source);
      BASELINES.add(base);
    }
  }

  @TempDir Path dir;

  private int caseNo;
  private int cases;
  private int removals;
  private int cleanCuts;

  @Test
  void recoveryCutsTheTailAtTheLastBoundaryBeforeTheDamage() {
    RandomCases.check(
        "recovery cuts damaged tails",
        150,
        r -> {
          try {
            damagedTailCase(r);
            cases++;
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
    System.out.printf(
        "damaged-tail cases: %d, tail removed: %d, undamaged (cut at a boundary): %d%n",
        cases, removals, cleanCuts);
    assertThat(cases).isEqualTo(Integer.getInteger("binlogrelay.tries", 150));
  }

  private void damagedTailCase(Random r) throws IOException {
    int which = r.nextInt(SOURCES.size());
    SourceBinlog source = SOURCES.get(which);
    Path d = dir.resolve("case-" + caseNo++);
    Stores.copyDirectory(BASELINES.get(which), d);
    String tail = source.lastFile();
    long size = source.bytes.get(tail).length;
    NavigableMap<Long, GtidSet> boundaries = source.boundariesOf(tail);
    long fdeEnd = 4 + EventHeader.parse(source.bytes.get(tail), 4).eventSize();
    GtidSet before = boundaries.firstEntry().getValue();

    long damageFrom;
    if (r.nextInt(4) == 0) {
      Files.delete(d.resolve(MetadataFile.nameFor(tail)));
      damageFrom = r.nextInt(8) == 0 ? 0 : fdeEnd;
    } else {
      List<Long> candidates = new ArrayList<>(boundaries.tailMap(fdeEnd, true).keySet());
      long checkpoint = candidates.get(r.nextInt(candidates.size() - 1));
      Stores.writeCheckpoint(d, source, tail, checkpoint, before);
      damageFrom = checkpoint;
    }
    int mode = r.nextInt(3);
    long newSize = size;
    long firstDamaged = Long.MAX_VALUE;
    Path file = d.resolve(tail);
    if (mode != 1) {
      newSize = damageFrom + (long) (r.nextDouble() * (size - damageFrom));
      truncate(file, newSize);
      firstDamaged = newSize;
    }
    if (mode != 0 && newSize > damageFrom) {
      int flips = 1 + r.nextInt(4);
      for (int i = 0; i < flips; i++) {
        long at = damageFrom + (long) (r.nextDouble() * (newSize - damageFrom));
        int mask = 1 + r.nextInt(255);
        if (at == IN_USE_BYTE) {
          mask &=
              ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F; // the one bit the CRC32 deliberately skips
          if (mask == 0) {
            continue;
          }
        }
        flip(file, at, mask);
        firstDamaged = Math.min(firstDamaged, at);
      }
    }
    boolean damaged = firstDamaged < size && !(mode == 0 && boundaries.containsKey(newSize));
    long eventStart = Stores.eventContaining(source, tail, firstDamaged);
    boolean removed = damaged && eventStart < fdeEnd;
    removals += removed ? 1 : 0;
    cleanCuts += damaged ? 0 : 1;
    long cut = !damaged ? Math.min(newSize, size) : removed ? 0 : boundaries.floorKey(eventStart);

    try (BinlogStore store = BinlogStore.open(Stores.config(d, source).build())) {
      RecoveryReport report = store.recoveryReport();
      String where =
          "mode "
              + mode
              + ", damage from "
              + damageFrom
              + ", first damaged byte "
              + firstDamaged
              + ", size "
              + newSize
              + ": "
              + report;
      if (!damaged) {
        assertThat(report.truncations()).as(where).isEmpty();
      } else {
        assertThat(report.truncations()).as(where).hasSize(1);
        Truncation t = report.truncations().get(0);
        assertThat(t.file()).as(where).isEqualTo(tail);
        assertThat(t.offset()).as(where).isEqualTo(cut);
        assertThat(t.bytes()).as(where).isEqualTo(newSize - cut);
        if (!removed) {
          assertThat(t.problemOffset()).as(where).isIn(eventStart, cut);
        }
      }
      Position end;
      if (removed) {
        assertThat(Files.exists(file)).as(where).isFalse();
        String previous = source.files.get(source.files.size() - 2);
        end = new Position(previous, source.bytes.get(previous).length);
        assertThat(store.startStream()).as(where).isEqualTo(Optional.of(Position.startOf(tail)));
        Stores.assertPrefixOfSource(d, source, end, false);
        assertThat(store.executedGtids()).as(where).isEqualTo(before);
      } else {
        end = new Position(tail, cut);
        assertThat(store.readableEnd()).as(where).isEqualTo(end);
        assertThat(store.startStream()).as(where).isEqualTo(Optional.of(end));
        Stores.assertPrefixOfSource(d, source, end, true);
        assertThat(store.executedGtids()).as(where).isEqualTo(Stores.sourceGtidsAt(source, end));
      }
      Stores.appendFrom(store, source);
      assertThat(store.executedGtids()).as(where).isEqualTo(source.expectedFinalGtids());
    }
    for (String f : source.files) {
      assertThat(Files.readAllBytes(d.resolve(f)))
          .as("resumed " + f)
          .isEqualTo(source.bytes.get(f));
    }
  }

  @Test
  void aFlipInAClosedFileIsFoundByVerify() {
    RandomCases.check(
        "verify finds flips in closed files",
        100,
        r -> {
          try {
            int which = r.nextInt(SOURCES.size());
            SourceBinlog source = SOURCES.get(which);
            Path d = dir.resolve("verify-" + caseNo++);
            Stores.copyDirectory(BASELINES.get(which), d);
            String victim = source.files.get(r.nextInt(source.files.size() - 1));
            long size = source.bytes.get(victim).length;
            long at = (long) (r.nextDouble() * size);
            int mask = 1 + r.nextInt(255);
            if (at == IN_USE_BYTE) {
              mask |= 2;
            }
            flip(d.resolve(victim), at, mask);
            try (BinlogStore store = BinlogStore.open(Stores.config(d, source).build())) {
              assertThat(store.recoveryReport().filesScanned())
                  .as("only the tail is read")
                  .isEqualTo(1);
              FileVerification v = store.verify(victim);
              assertThat(v.ok()).as(v.toString()).isFalse();
              assertThat(v.problemOffset())
                  .as(v.toString())
                  .isEqualTo(at < 4 ? 0 : Stores.eventContaining(source, victim, at));
              for (String other : source.files) {
                if (!other.equals(victim)) {
                  assertThat(store.verify(other).ok()).as(other).isTrue();
                }
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  @Test
  void openingReadsOnlyTheTailSinceItsCheckpoint() throws IOException {
    for (int i = 0; i < SOURCES.size(); i++) {
      SourceBinlog source = SOURCES.get(i);
      Path d = dir.resolve("startup-" + i);
      Stores.copyDirectory(BASELINES.get(i), d);
      try (BinlogStore store = BinlogStore.open(Stores.config(d, source).build())) {
        RecoveryReport report = store.recoveryReport();
        assertThat(report.clean()).as(report.toString()).isTrue();
        assertThat(report.filesScanned()).isEqualTo(1);
        // The clean close wrote a checkpoint at the end: only the FORMAT_DESCRIPTION is read back.
        assertThat(report.bytesScanned())
            .isLessThanOrEqualTo(source.bytes.get(source.lastFile()).length);
        assertThat(store.executedGtids()).isEqualTo(source.expectedFinalGtids());
        Map<String, FileMetadata> byName = new HashMap<>();
        store.files().forEach(f -> byName.put(f.name(), f));
        assertThat(store.purgedGtids()).isEqualTo(byName.get(source.files.get(0)).gtidsAtStart());
      }
    }
  }

  private static void truncate(Path file, long length) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(length);
    }
  }

  private static void flip(Path file, long at, int mask) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ mask);
    }
  }
}
