package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link BinlogStore#files()}, {@link BinlogStore#executedGtids()} and {@link
 * BinlogStore#readableSnapshot()} say while the writer and the syncer are busy: never a transaction
 * readers cannot read, never a stale end state for a file that is complete, and one consistent
 * picture per call.
 */
class ReadableMetadataTest {
  @TempDir Path dir;

  @Test
  void aFileClosedByRotateOrStopButNotYetByTheSyncerShowsItsTrueEnd() throws Exception {
    for (SourceBinlog source : SourceBinlog.all()) {
      Faults disk = new Faults();
      Path d = dir.resolve("rotated-" + source.directory);
      try (BinlogStore store = BinlogStore.open(Stores.config(d, source).build(), disk);
          Released released = new Released(disk)) {
        List<BinlogEvent> stream = streamFrom(store, source);
        int i = 0;
        while (!endsAFile(stream.get(i))) {
          store.append(stream.get(i++));
        }
        String ended = store.currentFile().orElseThrow();
        String next = source.files.get(source.files.indexOf(ended) + 1);
        store.sync().join();
        disk.holdForces(); // the close job of the file stalls on its force
        FileMetadata.Ending ending =
            stream.get(i).type() == EventType.ROTATE
                ? FileMetadata.Ending.ROTATE
                : FileMetadata.Ending.STOP;
        store.append(stream.get(i++)); // the ROTATE or STOP
        while (store.file(next).map(f -> f.transactions() < 1).orElse(true)) {
          store.append(stream.get(i++));
        }
        assertThat(store.durableEnd())
            .as("%s is not closed on disk yet", ended)
            .isLessThan(new Position(ended, source.bytes.get(ended).length));
        FileMetadata shown = store.file(ended).orElseThrow();
        assertTrueEnd(source, ended, shown);
        assertThat(shown.ending()).isEqualTo(ending);
        assertThat(shown.nextFile()).isEqualTo(ending == FileMetadata.Ending.ROTATE ? next : null);
        disk.releaseForces();
        store.sync().join();
        FileMetadata closed =
            MetadataFile.read(new StoreDirectory(d), ended, BinlogFlavor.of(source.flavor));
        assertThat(shown)
            .as("what files() said before the close is what the close wrote")
            .isEqualTo(closed);
      }
    }
  }

  private static boolean endsAFile(BinlogEvent e) {
    return (e.type() == EventType.ROTATE || e.type() == EventType.STOP) && e.header().logPos() != 0;
  }

  @Test
  void aFileAbandonedByACrashedPrimaryShowsItsTrueEndBeforeTheSyncerClosesIt() throws Exception {
    SourceBinlog source = SourceBinlog.mysql();
    String second = source.files.get(1);
    String third = source.files.get(2);
    long cut = source.boundariesOf(second).lowerKey((long) source.bytes.get(second).length - 100);
    Faults disk = new Faults();
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build(), disk);
        Released released = new Released(disk)) {
      store.startStream();
      for (BinlogEvent e : source.dumpStream(Position.startOf(source.files.get(0)))) {
        if (e.header().logPos() > cut && store.currentFile().orElse("").equals(second)) {
          break;
        }
        store.append(e);
      }
      store.sync().join();
      disk.holdForces();
      List<BinlogEvent> restarted = source.dumpStream(Position.startOf(third));
      int i = 0;
      while (store.file(third).map(f -> f.transactions() < 1).orElse(true)) {
        store.append(restarted.get(i++));
      }
      FileMetadata shown = store.file(second).orElseThrow();
      assertThat(shown.closed()).isTrue();
      assertThat(shown.ending()).isEqualTo(FileMetadata.Ending.NONE);
      assertThat(shown.size()).isEqualTo(cut);
      assertThat(shown.gtidsAtEnd()).isEqualTo(source.boundariesOf(second).get(cut));
      disk.releaseForces();
      store.sync().join();
      assertThat(shown)
          .isEqualTo(
              MetadataFile.read(new StoreDirectory(dir), second, BinlogFlavor.of(source.flavor)));
    }
  }

  @Test
  void whenReadersSeeOnlyDurableBytesFilesDescribeOnlyWhatIsReadable() throws Exception {
    for (SourceBinlog source : SourceBinlog.all()) {
      String first = source.files.get(0);
      String second = source.files.get(1);
      Faults disk = new Faults();
      Path d = dir.resolve("durable-" + source.directory);
      StoreConfig config = Stores.config(d, source).readableWhenDurable(true).build();
      try (BinlogStore store = BinlogStore.open(config, disk);
          Released released = new Released(disk)) {
        List<BinlogEvent> stream = streamFrom(store, source);
        int i = 0;
        int transactions = 0;
        while (transactions < 3) {
          if (store.append(stream.get(i++)).completedTransaction()) {
            transactions++;
          }
        }
        store.sync().join();
        Position readable = store.readableEnd();
        assertThat(readable.file()).isEqualTo(first);
        disk.holdForces(); // nothing more becomes durable, so nothing more readable
        Appended a;
        do {
          a = store.append(stream.get(i++));
        } while (!(a.completedTransaction() && a.position().file().equals(second)));
        assertThat(store.readableEnd()).isEqualTo(readable);
        GtidSet executed = store.executedGtids();
        assertThat(executed).isEqualTo(Stores.sourceGtidsAt(source, readable));

        FileMetadata f1 = store.file(first).orElseThrow();
        assertThat(f1.size()).isEqualTo(readable.offset()).isEqualTo(store.readableLength(first));
        assertThat(f1.gtidsAtEnd()).as("no GTID past the readable boundary").isEqualTo(executed);
        assertThat(f1.closed()).as("not complete for readers yet").isFalse();
        assertThat(f1.ending()).isEqualTo(FileMetadata.Ending.NONE);
        FileMetadata f2 = store.file(second).orElseThrow();
        assertThat(f2.size())
            .as("nothing of " + second + " is readable")
            .isEqualTo(BinlogFileName.FIRST_EVENT_OFFSET);
        assertThat(f2.transactions()).isZero();
        assertThat(f2.firstGtid()).isNull();
        assertThat(f2.gtidsAtEnd()).isEqualTo(f2.gtidsAtStart());
        assertThat(store.readableLength(second)).isZero();

        disk.releaseForces();
        store.sync().join();
        FileMetadata complete = store.file(first).orElseThrow();
        assertThat(complete.closed()).isTrue();
        assertTrueEnd(source, first, complete);
      }
    }
  }

  @Test
  void theOpenFilesFirstGtidIsKnownAsSoonAsItsFirstTransactionIsReadable() throws IOException {
    for (SourceBinlog source : SourceBinlog.all()) {
      for (boolean whenDurable : new boolean[] {false, true}) {
        String second = source.files.get(1);
        String expectedFirst =
            source.expected.getProperty("file." + second + ".gtids").split(",")[0];
        Path d = dir.resolve("first-" + source.directory + "-" + whenDurable);
        // Checkpoints never come on their own: whatever is known comes from the writer.
        StoreConfig config =
            Stores.config(d, source)
                .readableWhenDurable(whenDurable)
                .syncPolicy(SyncPolicy.everyTransaction())
                .checkpointBytes(Long.MAX_VALUE)
                .checkpointInterval(Duration.ofDays(1))
                .build();
        try (BinlogStore store = BinlogStore.open(config)) {
          List<BinlogEvent> stream = streamFrom(store, source);
          int i = 0;
          Appended a;
          do {
            a = store.append(stream.get(i++));
          } while (!(a.completedTransaction() && a.position().file().equals(second)));
          store.readable().whenReached(a.position()).join();
          FileMetadata open = store.file(second).orElseThrow();
          assertThat(open.transactions()).isEqualTo(1);
          assertThat(open.firstGtid()).as("first GTID of " + second).isEqualTo(expectedFirst);
          assertThat(open.lastGtid()).isEqualTo(expectedFirst);
          a = store.append(stream.get(i++));
          while (!a.completedTransaction()) {
            a = store.append(stream.get(i++));
          }
          store.readable().whenReached(a.position()).join();
          assertThat(store.file(second).orElseThrow().firstGtid()).isEqualTo(expectedFirst);
        }
      }
    }
  }

  /**
   * One writer, readers asking all the time: a snapshot's GTID set is exactly the set at its
   * position; the executed set read before the readable end never holds a transaction past it; the
   * open file's entry is one boundary's picture (size and set agree).
   */
  @Test
  void readersNeverSeeGtidsPastTheReadableBoundary() throws Exception {
    for (SourceBinlog source : SourceBinlog.all()) {
      AtomicReference<BinlogStore> current = new AtomicReference<>();
      AtomicBoolean done = new AtomicBoolean();
      List<String> problems = new ArrayList<>();
      int[] checks = new int[1];
      Thread reader =
          new Thread(
              () -> {
                while (!done.get()) {
                  BinlogStore store = current.get();
                  if (store == null) {
                    continue;
                  }
                  ReadableSnapshot s = store.readableSnapshot();
                  if (s.end() != null
                      && !s.executedGtids().equals(Stores.sourceGtidsAt(source, s.end()))) {
                    problems.add("snapshot " + s.end() + " has " + s.executedGtids());
                  }
                  GtidSet g = store.executedGtids();
                  Position p = store.readableEnd();
                  if (p != null && !Stores.sourceGtidsAt(source, p).containsAll(g)) {
                    problems.add(
                        "executed " + g + " read before readable end " + p + " is past it");
                  }
                  List<FileMetadata> files = store.files();
                  if (!files.isEmpty()) {
                    FileMetadata last = files.get(files.size() - 1);
                    GtidSet at = source.boundariesOf(last.name()).get(last.size());
                    if (at == null || !at.equals(last.gtidsAtEnd())) {
                      problems.add(
                          last.name()
                              + " listed with size "
                              + last.size()
                              + " and set "
                              + last.gtidsAtEnd());
                    }
                  }
                  checks[0]++;
                  if (problems.size() > 10) {
                    return;
                  }
                }
              },
              "snapshot reader");
      reader.start();
      try {
        for (int round = 0; round < 25 && problems.isEmpty(); round++) {
          Path d = dir.resolve("race-" + source.directory + "-" + round);
          try (BinlogStore store =
              BinlogStore.open(Stores.config(d, source).syncPolicy(SyncPolicy.off()).build())) {
            current.set(store);
            Stores.appendFrom(store, source);
          }
        }
      } finally {
        done.set(true);
        reader.join();
      }
      assertThat(problems).as("after " + checks[0] + " checks").isEmpty();
    }
  }

  /**
   * Closed before the store (resources close in reverse order): a held force must not block the
   * store's close.
   */
  private record Released(Faults disk) implements AutoCloseable {
    @Override
    public void close() {
      disk.releaseForces();
    }
  }

  private static List<BinlogEvent> streamFrom(BinlogStore store, SourceBinlog source)
      throws IOException {
    Position start = store.startStream().orElse(Position.startOf(source.files.get(0)));
    return source.dumpStream(start);
  }

  /** {@code shown} is the whole of {@code file} as the primary wrote it. */
  private static void assertTrueEnd(SourceBinlog source, String file, FileMetadata shown) {
    long length = source.bytes.get(file).length;
    String[] gtids = source.expected.getProperty("file." + file + ".gtids").split(",");
    assertThat(shown.closed()).isTrue();
    assertThat(shown.size()).isEqualTo(length);
    assertThat(shown.gtidsAtEnd()).isEqualTo(source.boundariesOf(file).get(length));
    assertThat(shown.transactions()).isEqualTo(gtids.length);
    assertThat(shown.firstGtid()).isEqualTo(gtids[0]);
    assertThat(shown.lastGtid()).isEqualTo(gtids[gtids.length - 1]);
  }
}
