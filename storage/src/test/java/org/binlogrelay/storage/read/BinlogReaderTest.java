package org.binlogrelay.storage.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.testing.RandomCases;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException.Reason;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Readers over stores filled from the fixture binlogs of both flavours, read to the end. */
class BinlogReaderTest {
  @TempDir Path dir;

  @Test
  void readsEveryFileByteForByteAcrossRotations() throws Exception {
    int run = 0;
    for (SourceFiles source : SourceFiles.all()) {
      try (BinlogStore store = TestStores.filled(dir.resolve("s" + run++), source)) {
        for (int batchBytes : new int[] {1, 200, 5000, ReaderOptions.DEFAULT_MAX_BATCH_BYTES}) {
          for (boolean zeroCopy : new boolean[] {true, false}) {
            String what =
                source.directory + " batch " + batchBytes + (zeroCopy ? " zero-copy" : " copied");
            ReaderOptions options = ReaderOptions.defaults().withMaxBatchBytes(batchBytes);
            try (BinlogReader reader =
                BinlogReader.open(store, Position.startOf(source.files.get(0)), options)) {
              Collected c = Collected.drain(reader, zeroCopy);
              for (String f : source.files) {
                assertThat(SourceFiles.sameBinlogBytes(withMagic(c.of(f)), source.bytes(f)))
                    .as(what + ": " + f)
                    .isTrue();
              }
              assertThat(c.changes)
                  .as(what)
                  .containsExactly(
                      new FileChange(source.files.get(0), source.files.get(1)),
                      new FileChange(source.files.get(1), source.files.get(2)));
              assertBatchesEndAtBoundaries(source, c, what);
              assertThat(reader.position())
                  .isEqualTo(
                      new Position(source.lastFile(), source.bytes(source.lastFile()).length));
              assertThat(reader.poll()).isEqualTo(new CaughtUp(reader.position()));
            }
          }
        }
      }
    }
  }

  @Test
  void batchesGiveEachEventsSize() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    try (BinlogStore store = TestStores.filled(dir, source);
        BinlogReader reader =
            BinlogReader.open(
                store,
                Position.startOf(source.files.get(0)),
                ReaderOptions.defaults().withMaxBatchBytes(700))) {
      List<EventBatch> batches = new ArrayList<>();
      for (ReadResult r = reader.poll(); !(r instanceof CaughtUp); r = reader.poll()) {
        if (r instanceof EventBatch b) {
          batches.add(b);
        }
      }
      for (EventBatch b : batches) {
        long at = b.start();
        long total = 0;
        for (int i = 0; i < b.eventCount(); i++) {
          assertThat(source.eventStarts(b.file())).as(b + " event " + i).contains(at);
          at += b.eventSize(i);
          total += b.eventSize(i);
        }
        assertThat(total).isEqualTo(b.length());
        ByteBuffer parts = ByteBuffer.allocate((int) b.length());
        b.copyTo(parts, 0, b.length() / 2);
        b.copyTo(parts, b.length() / 2, b.length() - b.length() / 2);
        // the in-use flag of a closed file's FORMAT_DESCRIPTION may be cleared between two reads
        assertThat(SourceFiles.firstDifference(parts.array(), b.toByteArray(), b.start()))
            .isEqualTo(-1);
        assertThat(b.eventSizes()).hasSize(b.eventCount());
        b.close();
      }
    }
  }

  @Test
  void startsAtAnyEventBoundary() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      Path d = dir.resolve(source.directory);
      try (BinlogStore store = TestStores.filled(d, source)) {
        String file = source.files.get(1);
        List<Long> starts = new ArrayList<>(source.eventStarts(file));
        RandomCases.check(
            "reader starts at event " + source.directory,
            20,
            rnd -> {
              long start = starts.get(rnd.nextInt(starts.size()));
              try (BinlogReader reader =
                  BinlogReader.open(
                      store,
                      new Position(file, start),
                      ReaderOptions.defaults().withMaxBatchBytes(1 + rnd.nextInt(3000)))) {
                Collected c = Collected.drain(reader, rnd.nextBoolean());
                byte[] expected =
                    Arrays.copyOfRange(source.bytes(file), (int) start, source.bytes(file).length);
                assertThat(SourceFiles.firstDifference(c.of(file), expected, start))
                    .as("first difference")
                    .isEqualTo(-1);
                assertThat(c.changes).containsExactly(new FileChange(file, source.lastFile()));
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
      }
    }
  }

  @Test
  void aBufferedPollHandsOutTheSameBytesInBatchesCutAtBoundariesAndHoldsThem() throws Exception {
    int run = 0;
    for (SourceFiles source : SourceFiles.all()) {
      try (BinlogStore store = TestStores.filled(dir.resolve("b" + run++), source)) {
        for (int capacity : new int[] {1, 19, 200, 5000, ReaderOptions.DEFAULT_MAX_BATCH_BYTES}) {
          for (boolean direct : new boolean[] {true, false}) {
            String what = source.directory + " buffer " + capacity + (direct ? " direct" : " heap");
            ReaderOptions options = ReaderOptions.defaults().withMaxBatchBytes(capacity);
            ByteBuffer buffer =
                direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
            Collected c = new Collected(false);
            int inMemory = 0;
            try (BinlogReader reader =
                BinlogReader.open(store, Position.startOf(source.files.get(0)), options)) {
              while (true) {
                ReadResult r = reader.poll(buffer);
                if (r instanceof EventBatch b) {
                  long total = 0;
                  for (int i = 0; i < b.eventCount(); i++) {
                    assertThat(source.eventStarts(b.file()))
                        .as(what + " " + b)
                        .contains(b.start() + total);
                    total += b.eventSize(i);
                  }
                  assertThat(total).isEqualTo(b.length());
                  ByteBuffer held = b.inMemory();
                  if (held != null) {
                    inMemory++;
                    assertThat(b.length()).as(what).isLessThanOrEqualTo(capacity);
                    byte[] bytes = new byte[held.remaining()];
                    held.get(bytes);
                    assertThat(
                            SourceFiles.firstDifference(
                                bytes,
                                Arrays.copyOfRange(
                                    source.bytes(b.file()), (int) b.start(), (int) b.end()),
                                b.start()))
                        .as(what + " " + b)
                        .isEqualTo(-1);
                    assertThatThrownBy(() -> b.inMemory().put((byte) 0))
                        .isInstanceOf(ReadOnlyBufferException.class);
                  } else {
                    assertThat(b.eventSize(0))
                        .as(what + ": only events larger than the buffer are left on disk")
                        .isGreaterThan(capacity);
                  }
                }
                if (!c.take(r)) {
                  break;
                }
              }
            }
            for (String f : source.files) {
              assertThat(SourceFiles.sameBinlogBytes(withMagic(c.of(f)), source.bytes(f)))
                  .as(what + ": " + f)
                  .isTrue();
            }
            assertBatchesEndAtBoundaries(source, c, what);
            if (capacity >= 5000) {
              assertThat(inMemory).as(what).isGreaterThan(c.batches.size() / 2);
            }
          }
        }
      }
    }
  }

  @Test
  void aBufferedPollHandsOutWhatIsOnDiskThenReportsAFileCutUnderIt() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    String last = source.lastFile();
    ByteBuffer buffer = ByteBuffer.allocateDirect(100);
    try (BinlogStore store = TestStores.filled(dir, source);
        BinlogReader reader =
            BinlogReader.open(
                store, Position.startOf(last), ReaderOptions.defaults().withMaxBatchBytes(100))) {
      ReadResult first = reader.poll(buffer);
      assertThat(first).isInstanceOf(EventBatch.class);
      ((EventBatch) first).close();
      try (FileChannel ch = FileChannel.open(dir.resolve(last), StandardOpenOption.WRITE)) {
        ch.truncate(reader.position().offset() + 10);
      }
      assertThatThrownBy(() -> reader.poll(buffer))
          .isInstanceOfSatisfying(
              BinlogReadException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.TRUNCATED);
                assertThat(e.position().file()).isEqualTo(last);
              })
          .hasMessageContaining("truncated");
    }
  }

  @Test
  void aStartInsideAnEventFailsAtTheFirstPoll() throws Exception {
    for (SourceFiles source : SourceFiles.all()) {
      Path d = dir.resolve(source.directory);
      try (BinlogStore store = TestStores.filled(d, source)) {
        String file = source.files.get(1);
        int length = source.bytes(file).length;
        RandomCases.check(
            "reader inside an event " + source.directory,
            50,
            rnd -> {
              long offset;
              do {
                offset = 5L + rnd.nextInt(length - 5);
              } while (source.eventStarts(file).contains(offset));
              long start = offset;
              // both paths: header-only, and a batch read into a buffer (which falls back to the
              // first to report it)
              ByteBuffer buffer =
                  rnd.nextBoolean()
                      ? ByteBuffer.allocateDirect(ReaderOptions.DEFAULT_MAX_BATCH_BYTES)
                      : null;
              try (BinlogReader reader =
                  BinlogReader.open(store, new Position(file, start), ReaderOptions.defaults())) {
                assertThatThrownBy(() -> reader.poll(buffer))
                    .isInstanceOfSatisfying(
                        BinlogReadException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.CORRUPT))
                    .hasMessageContaining("not an event boundary");
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
      }
    }
  }

  @Test
  void refusesAFileThatIsNotStoredOrAnOffsetPastItsReadableEnd() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      assertThatThrownBy(
              () ->
                  BinlogReader.open(
                      store, Position.startOf("binlog.000009"), ReaderOptions.defaults()))
          .isInstanceOfSatisfying(
              BinlogReadException.class, e -> assertThat(e.reason()).isEqualTo(Reason.REMOVED));
      long end = source.bytes(source.lastFile()).length;
      assertThatThrownBy(
              () ->
                  BinlogReader.open(
                      store, new Position(source.lastFile(), end + 1), ReaderOptions.defaults()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("PositionLookup");
    }
  }

  @Test
  void detectsAFileCutUnderTheReader() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    String last = source.lastFile();
    try (BinlogStore store = TestStores.filled(dir, source);
        BinlogReader reader =
            BinlogReader.open(
                store, Position.startOf(last), ReaderOptions.defaults().withMaxBatchBytes(100))) {
      ReadResult first = reader.poll();
      assertThat(first).isInstanceOf(EventBatch.class);
      ((EventBatch) first).close();
      try (FileChannel ch = FileChannel.open(dir.resolve(last), StandardOpenOption.WRITE)) {
        ch.truncate(reader.position().offset() + 10);
      }
      assertThatThrownBy(reader::poll)
          .isInstanceOfSatisfying(
              BinlogReadException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.TRUNCATED);
                assertThat(e.position().file()).isEqualTo(last);
              })
          .hasMessageContaining("truncated");
    }
  }

  @Test
  void detectsAFileRecreatedUnderTheReader() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    var stream = source.dumpStream();
    int split = stream.size() - 3; // the last group (GTID, ..., XID) comes later
    try (BinlogStore store = TestStores.unsynced(dir, source.flavor, stream.subList(0, split));
        BinlogReader reader =
            BinlogReader.open(
                store, Position.startOf(source.lastFile()), ReaderOptions.defaults())) {
      Collected.drain(reader, false);
      Path file = dir.resolve(source.lastFile());
      Files.move(file, dir.resolve("elsewhere"));
      Files.write(file, Arrays.copyOf(source.bytes(source.lastFile()), 1000));
      TestStores.append(store, stream.subList(split, stream.size()));
      assertThatThrownBy(reader::poll)
          .isInstanceOfSatisfying(
              BinlogReadException.class, e -> assertThat(e.reason()).isEqualTo(Reason.REPLACED))
          .hasMessageContaining("created again");
    }
  }

  @Test
  void keepsReadingAFileRemovedUnderItButNotAPurgedNextFile() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    String f1 = source.files.get(0);
    String f2 = source.files.get(1);
    try (BinlogStore store = TestStores.filled(dir, source)) {
      TestStores.settle(store);
      try (BinlogReader reader =
          BinlogReader.open(
              store, Position.startOf(f1), ReaderOptions.defaults().withMaxBatchBytes(500))) {
        ((EventBatch) reader.poll()).close();
        store.removeFilesBefore(f2);
        Collected c = Collected.drain(reader, true);
        assertThat(c.changes).contains(new FileChange(f1, f2));
        byte[] expected = Arrays.copyOfRange(source.bytes(f2), 4, source.bytes(f2).length);
        assertThat(SourceFiles.firstDifference(c.of(f2), expected, 4)).isEqualTo(-1);
      }
      try (BinlogReader reader =
          BinlogReader.open(
              store, Position.startOf(f2), ReaderOptions.defaults().withMaxBatchBytes(1 << 20))) {
        ((EventBatch) reader.poll()).close();
        assertThat(reader.position()).isEqualTo(new Position(f2, source.bytes(f2).length));
        store.removeFilesBefore(source.lastFile());
        assertThat(reader.poll()).isEqualTo(new FileChange(f2, source.lastFile()));
      }
    }
    SourceFiles again = SourceFiles.mysql();
    try (BinlogStore store = TestStores.filled(dir.resolve("b"), again);
        BinlogReader reader =
            BinlogReader.open(
                store, Position.startOf(f1), ReaderOptions.defaults().withMaxBatchBytes(1 << 20))) {
      TestStores.settle(store);
      ((EventBatch) reader.poll()).close();
      assertThat(reader.position().offset()).isEqualTo(again.bytes(f1).length);
      store.removeFilesBefore(again.lastFile());
      assertThatThrownBy(reader::poll)
          .isInstanceOfSatisfying(
              BinlogReadException.class, e -> assertThat(e.reason()).isEqualTo(Reason.REMOVED))
          .hasMessageContaining(f2);
    }
  }

  @Test
  void batchesOutliveTheReadersMoveToTheNextFile() throws Exception {
    SourceFiles source = SourceFiles.mariadb();
    String f1 = source.files.get(0);
    try (BinlogStore store = TestStores.filled(dir, source)) {
      EventBatch kept;
      try (BinlogReader reader =
          BinlogReader.open(store, Position.startOf(f1), ReaderOptions.defaults())) {
        kept = (EventBatch) reader.poll();
        assertThat(kept.file()).isEqualTo(f1);
        Collected.drain(reader, false);
      }
      byte[] bytes = kept.toByteArray();
      byte[] expected = Arrays.copyOfRange(source.bytes(f1), 4, (int) kept.end());
      assertThat(SourceFiles.firstDifference(bytes, expected, 4)).isEqualTo(-1);
      assertThat(kept.region().channel().isOpen()).isTrue();
      FileChannel channel = kept.region().channel();
      kept.close();
      kept.close();
      assertThat(channel.isOpen()).isFalse();
      assertThatThrownBy(() -> kept.copyTo(ByteBuffer.allocate((int) kept.length())))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void registersItsPositionWhileOpen() throws Exception {
    SourceFiles source = SourceFiles.mysql();
    ReaderRegistry registry = new ReaderRegistry();
    try (BinlogStore store = TestStores.filled(dir, source)) {
      Position start = Position.startOf(source.files.get(1));
      try (BinlogReader reader =
          BinlogReader.open(
              store,
              start,
              ReaderOptions.defaults().withRegistry(registry).withName("replica 7"))) {
        assertThat(registry.oldest()).contains(start);
        assertThat(registry.readers())
            .extracting(ReaderRegistry.Registration::name)
            .containsExactly("replica 7");
        Collected.drain(reader, false);
        assertThat(registry.oldest()).contains(reader.position());
      }
      assertThat(registry.oldest()).isEmpty();
    }
  }

  private static byte[] withMagic(byte[] rest) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(BinlogFileParser.MAGIC);
    out.writeBytes(rest);
    return out.toByteArray();
  }

  static void assertBatchesEndAtBoundaries(SourceFiles source, Collected c, String what) {
    for (EventBatch b : c.batches) {
      Set<Long> allowed =
          b.endsAtTransactionBoundary()
              ? source.boundaries(b.file())
              : source.eventStarts(b.file());
      assertThat(allowed).as(what + ": end of " + b).contains(b.end());
    }
  }
}
