package org.binlogrelay.storage.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.NavigableSet;
import org.binlogrelay.protocol.testing.RandomCases;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.lookup.PositionCheck.Invalid;
import org.binlogrelay.storage.lookup.PositionCheck.Problem;
import org.binlogrelay.storage.lookup.PositionCheck.Valid;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checking file-and-offset start positions against every offset of the fixture files. */
class PositionLookupTest {
  @TempDir
  Path dir;

  @Test
  void everyOffsetOfACompleteFileIsJudgedRight() throws Exception {
    for (SourceFiles source : SourceFiles.both()) {
      try (BinlogStore store = TestStores.filled(dir.resolve(source.directory), source)) {
        PositionLookup lookup = new PositionLookup(store);
        for (String f : source.files.subList(0, 2)) {
          long size = source.bytes(f).length;
          for (long offset = 0; offset <= size + 5; offset++) {
            assertThat(lookup.check(f, offset)).as(f + ":" + offset).isEqualTo(expected(source, f, offset, size, true));
          }
        }
      }
    }
  }

  @Test
  void offsetsOfTheFileBeingWritten() throws Exception {
    for (SourceFiles source : SourceFiles.both()) {
      try (BinlogStore store = TestStores.filled(dir.resolve(source.directory), source)) {
        PositionLookup lookup = new PositionLookup(store);
        String f = source.lastFile();
        long size = source.bytes(f).length;
        for (long start : source.eventStarts(f)) {
          assertThat(lookup.check(f, start)).isEqualTo(new Valid(new Position(f, start)));
        }
        assertThat(lookup.check(f, size)).isEqualTo(new Valid(new Position(f, size)));
        assertThat(lookup.check(f, size + 1)).isEqualTo(new Invalid(Problem.NOT_YET_READABLE, f, size + 1, size, -1));
        RandomCases.check("offsets of " + f, 200, rnd -> {
          long offset = rnd.nextInt((int) size);
          try {
            assertThat(lookup.check(f, offset)).isEqualTo(expected(source, f, offset, size, false));
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
      }
    }
  }

  @Test
  void unknownFilesAndTheFirstFileShorthand() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      PositionLookup lookup = new PositionLookup(store);
      assertThat(lookup.check("binlog.000099", 4)).isEqualTo(new Invalid(Problem.FILE_NOT_FOUND, "binlog.000099", 4, -1, -1));
      assertThat(lookup.check("../etc/passwd", 4)).isEqualTo(new Invalid(Problem.FILE_NOT_FOUND, "../etc/passwd", 4, -1, -1));
      assertThat(lookup.check("", 4)).isEqualTo(new Valid(Position.startOf(source.files.get(0))));
    }
    try (BinlogStore empty = BinlogStore.open(TestStores.config(dir.resolve("empty"), source.flavor).build())) {
      assertThat(new PositionLookup(empty).check("", 4)).isEqualTo(new Invalid(Problem.FILE_NOT_FOUND, "", 4, -1, -1));
    }
  }

  private static PositionCheck expected(SourceFiles source, String f, long offset, long size, boolean complete) {
    if (offset < 4) {
      return new Invalid(Problem.BELOW_FIRST_EVENT, f, offset, -1, -1);
    }
    if (offset > size) {
      return new Invalid(complete ? Problem.PAST_FILE_END : Problem.NOT_YET_READABLE, f, offset, size, -1);
    }
    NavigableSet<Long> starts = source.eventStarts(f);
    if (offset == size || starts.contains(offset)) {
      return new Valid(new Position(f, offset));
    }
    return new Invalid(Problem.INSIDE_EVENT, f, offset, size, starts.floor(offset));
  }
}
