package org.binlogrelay.storage.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.binlogrelay.protocol.testing.RandomCases;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.EventBoundaries;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.lookup.PositionCheck.Invalid;
import org.binlogrelay.storage.lookup.PositionCheck.Problem;
import org.binlogrelay.storage.lookup.PositionCheck.Valid;
import org.binlogrelay.storage.read.EventCursor;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.SyntheticBinlog;
import org.binlogrelay.storage.read.testing.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checking file-and-offset start positions against every offset of the fixture files. */
class PositionLookupTest {
  @TempDir Path dir;

  @Test
  void everyOffsetOfACompleteFileIsJudgedRight() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      try (BinlogStore store = TestStores.filled(dir.resolve(source.directory), source)) {
        PositionLookup lookup = new PositionLookup(store);
        for (String f : source.files.subList(0, 2)) {
          long size = source.bytes(f).length;
          for (long offset = 0; offset <= size + 5; offset++) {
            assertThat(lookup.check(f, offset))
                .as(f + ":" + offset)
                .isEqualTo(expected(source, f, offset, size, true));
          }
        }
      }
    }
  }

  @Test
  void offsetsOfTheFileBeingWritten() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      try (BinlogStore store = TestStores.filled(dir.resolve(source.directory), source)) {
        PositionLookup lookup = new PositionLookup(store);
        String f = source.lastFile();
        long size = source.bytes(f).length;
        for (long start : source.eventStarts(f)) {
          assertThat(lookup.check(f, start)).isEqualTo(new Valid(new Position(f, start)));
        }
        assertThat(lookup.check(f, size)).isEqualTo(new Valid(new Position(f, size)));
        assertThat(lookup.check(f, size + 1))
            .isEqualTo(new Invalid(Problem.NOT_YET_READABLE, f, size + 1, size, -1));
        RandomCases.check(
            "offsets of " + f,
            200,
            rnd -> {
              long offset = rnd.nextInt((int) size);
              try {
                assertThat(lookup.check(f, offset))
                    .isEqualTo(expected(source, f, offset, size, false));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
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
      assertThat(lookup.check("binlog.000099", 4))
          .isEqualTo(new Invalid(Problem.FILE_NOT_FOUND, "binlog.000099", 4, -1, -1));
      assertThat(lookup.check("../etc/passwd", 4))
          .isEqualTo(new Invalid(Problem.FILE_NOT_FOUND, "../etc/passwd", 4, -1, -1));
      assertThat(lookup.check("", 4)).isEqualTo(new Valid(Position.startOf(source.files.get(0))));
    }
    try (BinlogStore empty =
        BinlogStore.open(TestStores.config(dir.resolve("empty"), source.flavor).build())) {
      assertThat(new PositionLookup(empty).check("", 4))
          .isEqualTo(new Invalid(Problem.FILE_NOT_FOUND, "", 4, -1, -1));
    }
  }

  @Test
  void aLargeFileIsWalkedOnceThenFromTheBoundariesFoundOnTheWay() throws Exception {
    try (BinlogStore store = oneLargeFile(4000)) {
      String f = "binlog.000001";
      long size = store.readableLength(f);
      assertThat(size).as("several spacings long").isGreaterThan(4 * EventBoundaries.SPACING);
      NavigableSet<Long> starts = eventStarts(store, f, size);
      PositionLookup lookup = new PositionLookup(store);
      assertThat(lookup.check(f, size))
          .as("the readable end needs no walk")
          .isEqualTo(new Valid(new Position(f, size)));
      assertThat(store.boundaries().count(f)).isZero();
      long last = starts.last();
      assertThat(lookup.check(f, last)).isEqualTo(new Valid(new Position(f, last)));
      int recorded = store.boundaries().count(f);
      assertThat(recorded).isGreaterThanOrEqualTo((int) (last / EventBoundaries.SPACING) - 1);

      // Every byte before the last recorded boundary is now zeros: a walk from offset 4 would fail.
      long hint = store.boundaries().floor(f, identity(store, f), last);
      assertThat(hint).isGreaterThan(size / 2);
      try (FileChannel ch =
          FileChannel.open(store.directory().resolve(f), StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.allocate((int) hint - 4), 4);
      }
      checkOffsetsFrom(lookup, starts, f, hint, size, "offsets after the last hint", 200);
    }
  }

  @Test
  void aHintThatIsNotABoundaryIsForgottenAndTheWalkStartsAgainFromTheFirstEvent() throws Exception {
    try (BinlogStore store = oneLargeFile(2000)) {
      String f = "binlog.000001";
      long size = store.readableLength(f);
      NavigableSet<Long> starts = eventStarts(store, f, size);
      long inside = starts.ceiling(size / 2) + 3; // three bytes into an event
      store.boundaries().record(f, identity(store, f), new long[] {inside}, 1);
      PositionLookup lookup = new PositionLookup(store);
      checkOffsetsFrom(lookup, starts, f, inside, size, "offsets after a wrong hint", 50);
      assertThat(store.boundaries().floor(f, identity(store, f), size))
          .as("the wrong hint is gone")
          .isNotEqualTo(inside);
      assertThat(store.boundaries().floor(f, "another file's identity", size)).isEqualTo(4);
    }
  }

  /**
   * binlog.000001 with {@code transactions} synthetic transactions, rotated to a short
   * binlog.000002.
   */
  private BinlogStore oneLargeFile(int transactions) throws Exception {
    SyntheticBinlog b = SyntheticBinlog.mysql();
    b.startFile("binlog.000001")
        .transactions(transactions)
        .rotateTo("binlog.000002")
        .transactions(1);
    BinlogStore store = TestStores.unsynced(dir, b.flavor(), b.drain());
    TestStores.settle(store);
    return store;
  }

  /**
   * {@code cases} random offsets of {@code [from, size)} of {@code f}, each judged as {@link
   * #expectedIn} says.
   */
  private static void checkOffsetsFrom(
      PositionLookup lookup,
      NavigableSet<Long> starts,
      String f,
      long from,
      long size,
      String what,
      int cases) {
    RandomCases.check(
        what,
        cases,
        rnd -> {
          long offset = from + rnd.nextInt((int) (size - from));
          try {
            assertThat(lookup.check(f, offset)).isEqualTo(expectedIn(starts, f, offset, size));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  private static NavigableSet<Long> eventStarts(BinlogStore store, String f, long size)
      throws Exception {
    NavigableSet<Long> starts = new TreeSet<>();
    try (FileChannel ch = store.openFile(f)) {
      EventCursor cursor = new EventCursor(f, ch, 4, size, store.config().maxEventSize());
      while (cursor.hasNext()) {
        starts.add(cursor.position());
        cursor.skip();
      }
    }
    return starts;
  }

  private static Object identity(BinlogStore store, String f) throws Exception {
    return Files.readAttributes(store.directory().resolve(f), BasicFileAttributes.class).fileKey();
  }

  private static PositionCheck expectedIn(
      NavigableSet<Long> starts, String f, long offset, long size) {
    if (offset == size || starts.contains(offset)) {
      return new Valid(new Position(f, offset));
    }
    return new Invalid(Problem.INSIDE_EVENT, f, offset, size, starts.floor(offset));
  }

  private static PositionCheck expected(
      SourceFiles source, String f, long offset, long size, boolean complete) {
    if (offset < 4) {
      return new Invalid(Problem.BELOW_FIRST_EVENT, f, offset, -1, -1);
    }
    if (offset > size) {
      return new Invalid(
          complete ? Problem.PAST_FILE_END : Problem.NOT_YET_READABLE, f, offset, size, -1);
    }
    NavigableSet<Long> starts = source.eventStarts(f);
    if (offset == size || starts.contains(offset)) {
      return new Valid(new Position(f, offset));
    }
    return new Invalid(Problem.INSIDE_EVENT, f, offset, size, starts.floor(offset));
  }
}
