package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer writes a transaction with one system call, not one per event (an event of {@link
 * BinlogFile#DIRECT_WRITE_BYTES} or more gets its own, after the events before it), and readers and
 * the syncer see exactly what they saw before: whole transactions, up to the readable boundary.
 */
class WriteBatchingTest {
  @TempDir Path dir;

  @Test
  void eachTransactionIsOneWriteEndingAtItsBoundary() throws IOException {
    for (SourceBinlog source : SourceBinlog.all()) {
      Path d = dir.resolve(source.directory);
      Faults disk = new Faults();
      int boundaries = 0;
      int bigEvents = 0;
      try (BinlogStore store = BinlogStore.open(Stores.config(d, source).build(), disk)) {
        store.startStream();
        for (BinlogEvent e : source.dumpStream(Position.startOf(source.files.get(0)))) {
          Appended a = store.append(e);
          if (a.written() && e.length() >= BinlogFile.DIRECT_WRITE_BYTES) {
            bigEvents++;
          }
          Position readable = store.readableEnd();
          if (readable != null) {
            assertThat(Files.size(d.resolve(readable.file())))
                .as("bytes on disk under " + readable)
                .isGreaterThanOrEqualTo(readable.offset());
          }
          if (a.written() && readable != null && readable.equals(a.position())) {
            boundaries++;
          }
        }
      }
      List<Faults.Write> binlogWrites = new ArrayList<>();
      for (Faults.Write w : disk.writes()) {
        if (source.files.contains(w.file())) {
          binlogWrites.add(w);
        }
      }
      int magic = 0;
      int flags = 0;
      for (Faults.Write w : binlogWrites) {
        if (w.position() == 0 && w.length() == 4) {
          magic++;
          continue;
        }
        if (w.position() == BinlogFile.IN_USE_FLAG_OFFSET && w.length() == 1) {
          flags++;
          continue;
        }
        NavigableMap<Long, GtidSet> b = source.boundariesOf(w.file());
        long start = w.position();
        long end = w.position() + w.length();
        if (!b.containsKey(start) || !b.containsKey(end)) {
          // Only around a big event: the events before it, the event itself, the events after it.
          long transactionEnd = b.ceilingKey(end);
          long transactionStart = b.floorKey(start);
          assertThat(transactionEnd - transactionStart)
              .as("write %s inside a transaction", w)
              .isGreaterThanOrEqualTo(BinlogFile.DIRECT_WRITE_BYTES);
          assertThat(Stores.eventContaining(source, w.file(), start))
              .as("write %s starts at an event", w)
              .isEqualTo(start);
          assertThat(Stores.eventContaining(source, w.file(), end))
              .as("write %s ends at an event", w)
              .isEqualTo(end);
        }
      }
      assertThat(magic).isEqualTo(source.files.size());
      assertThat(flags)
          .as("in-use flag cleared for each closed file")
          .isEqualTo(source.files.size() - 1);
      assertThat(bigEvents).as("the fixtures' 200 KB row event").isGreaterThan(0);
      assertThat(binlogWrites.size() - magic - flags)
          .as("one write per boundary, two more per big event (" + source.directory + ")")
          .isEqualTo(boundaries + 2 * bigEvents);
      for (String f : source.files.subList(0, source.files.size() - 1)) {
        assertThat(Files.readAllBytes(d.resolve(f))).isEqualTo(source.bytes.get(f));
      }
    }
  }
}
