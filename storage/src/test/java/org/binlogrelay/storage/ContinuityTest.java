package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.CorruptEventException;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store only writes an event that continues the stored binlog exactly; anything else is a clear
 * exception and not one byte changes on disk.
 */
class ContinuityTest {
  @TempDir Path dir;

  private final SourceBinlog source = SourceBinlog.mysql();
  private BinlogStore store;
  private List<BinlogEvent> stream;
  private int next;

  @BeforeEach
  void open() throws IOException {
    store = BinlogStore.open(Stores.config(dir, source).build());
    assertThat(store.startStream()).isEmpty();
    stream = source.dumpStream(Position.startOf(source.files.get(0)));
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  /** Appends the next {@code n} events of the source stream. */
  private void feed(int n) throws IOException {
    for (int i = 0; i < n; i++) {
      store.append(stream.get(next++));
    }
  }

  /** Feeds until the event at {@code next} is the first of a transaction (a GTID event). */
  private void feedToTransactionStart() throws IOException {
    while (!stream.get(next).type().isMysqlGtid()) {
      store.append(stream.get(next++));
    }
  }

  /** Name to length and CRC32 of every binlog file, once background work has settled. */
  private Map<String, String> snapshot() throws IOException {
    store.sync().join();
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> list = Files.list(dir)) {
      for (Path p : (Iterable<Path>) list::iterator) {
        String name = p.getFileName().toString();
        if (BinlogFileName.isValid(name)) {
          CRC32 crc = new CRC32();
          byte[] b = Files.readAllBytes(p);
          crc.update(b);
          files.put(name, b.length + " bytes, crc " + Long.toHexString(crc.getValue()));
        }
      }
    }
    return files;
  }

  private void assertRejectedAndNothingWritten(
      BinlogEvent event, Class<? extends Exception> type, String message) throws IOException {
    Map<String, String> before = snapshot();
    Position readable = store.readableEnd();
    assertThatThrownBy(() -> store.append(event)).isInstanceOf(type).hasMessageContaining(message);
    assertThat(snapshot()).isEqualTo(before);
    assertThat(store.readableEnd()).isEqualTo(readable);
    assertThatThrownBy(() -> store.append(stream.get(next)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("startStream");
  }

  @Test
  void aGapIsRejected() throws IOException {
    feed(6);
    assertRejectedAndNothingWritten(stream.get(next + 1), ContinuityException.class, "gap");
  }

  @Test
  void anOverlapIsRejected() throws IOException {
    feed(6);
    assertRejectedAndNothingWritten(stream.get(next - 1), ContinuityException.class, "overlap");
  }

  @Test
  void aWrongFileNameIsRejected() throws IOException {
    feed(3);
    feedToTransactionStart();
    BinlogEvent rotate = SourceBinlog.artificialRotate("binlog.000007", 4, true);
    assertRejectedAndNothingWritten(
        rotate, ContinuityException.class, "only binlog.000002 may follow");
  }

  @Test
  void aMidFileStartOfAnEmptyStoreIsRejected() {
    BinlogEvent rotate = SourceBinlog.artificialRotate(source.files.get(0), 1000, true);
    assertThatThrownBy(() -> store.append(rotate))
        .isInstanceOf(ContinuityException.class)
        .hasMessageContaining("expects any file at offset 4");
  }

  @Test
  void eventsAfterARealRotateWithoutTheNextFilesStartAreRejected() throws IOException {
    String second = source.files.get(1);
    while (!(stream.get(next).type() == EventType.ROTATE
        && !stream.get(next).header().hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F))) {
      store.append(stream.get(next++));
    }
    store.append(stream.get(next++)); // the real ROTATE at the end of the second file
    assertThat(store.currentFile()).isEmpty();
    // Skip the next file's artificial ROTATE and FORMAT_DESCRIPTION: its PREVIOUS_GTIDS comes
    // alone.
    BinlogEvent previousGtids = stream.get(next + 2);
    assertThat(previousGtids.type()).isEqualTo(EventType.PREVIOUS_GTIDS);
    assertRejectedAndNothingWritten(
        previousGtids, ContinuityException.class, second + " ended with ROTATE");
  }

  @Test
  void aRealFormatDescriptionWhereAMidFileOneBelongsIsRejected() throws IOException {
    feed(8);
    feedToTransactionStart();
    Position at = store.startStream().orElseThrow();
    store.append(SourceBinlog.artificialRotate(at.file(), at.offset(), true));
    BinlogEvent fdeAt4 = source.dumpFormat(at.file(), false);
    assertRejectedAndNothingWritten(fdeAt4, ContinuityException.class, "FORMAT_DESCRIPTION");
  }

  @Test
  void aChecksumMismatchIsRejected() throws IOException {
    feed(6);
    byte[] bad = stream.get(next).toByteArray();
    bad[EventHeader.SIZE] ^= 0x40;
    assertRejectedAndNothingWritten(
        BinlogEvent.wrap(bad, true), CorruptEventException.class, "CRC32");
  }

  @Test
  void aTransactionThatCannotBeIsRejected() throws IOException {
    feed(3);
    feedToTransactionStart();
    // The GTID event of the next transaction twice: the second one comes inside a transaction.
    BinlogEvent gtid = stream.get(next);
    store.append(gtid);
    BinlogEvent again = SourceBinlog.withLogPos(gtid, gtid.header().logPos() + gtid.length());
    assertRejectedAndNothingWritten(again, ContinuityException.class, "malformed stream");
  }

  @Test
  void aHeartbeatIsCheckedAndNotWritten() throws IOException {
    feed(6);
    Position end = new Position(source.files.get(0), stream.get(next - 1).header().logPos());
    Map<String, String> before = snapshot();
    Appended a = store.append(SourceBinlog.heartbeat(end.file(), end.offset(), true));
    assertThat(a.written()).isFalse();
    assertThat(snapshot()).isEqualTo(before);
    assertRejectedAndNothingWritten(
        SourceBinlog.heartbeat(end.file(), end.offset() + 100, true),
        ContinuityException.class,
        "events were lost");
  }

  @Test
  void afterARejectionStartStreamResumesWhereTheStoreEnds() throws IOException {
    feed(3);
    feedToTransactionStart();
    feed(2); // half a transaction
    assertThatThrownBy(() -> store.append(stream.get(next + 3)))
        .isInstanceOf(ContinuityException.class);
    Position resume = store.startStream().orElseThrow();
    assertThat(resume).isEqualTo(store.readableEnd());
    assertThat(Files.size(dir.resolve(resume.file())))
        .as("the half transaction was cut")
        .isEqualTo(resume.offset());
    Stores.appendFrom(store, source);
    store.sync().join();
    for (String f : source.files) {
      assertThat(Files.readAllBytes(dir.resolve(f))).isEqualTo(source.bytes.get(f));
    }
  }

  @Test
  void theWrongFlavourIsRejected() throws IOException {
    SourceBinlog mariadb = SourceBinlog.mariadb();
    Path other = dir.resolve("other");
    try (BinlogStore mysqlStore =
        BinlogStore.open(StoreConfig.builder(other, GtidFlavor.MYSQL).build())) {
      mysqlStore.startStream();
      List<BinlogEvent> s = mariadb.dumpStream(Position.startOf(mariadb.files.get(0)));
      mysqlStore.append(s.get(0));
      assertThatThrownBy(() -> mysqlStore.append(s.get(1)))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("MariaDB")
          .hasMessageContaining("configured for MYSQL");
      assertThat(mysqlStore.files()).isEmpty();
    }
  }

  @Test
  void artificialEventsAreNotWritten() throws IOException {
    SourceBinlog mariadb = SourceBinlog.mariadb();
    Path other = dir.resolve("mariadb");
    try (BinlogStore s = BinlogStore.open(Stores.config(other, mariadb).build())) {
      s.startStream();
      List<BinlogEvent> events = mariadb.dumpStream(Position.startOf(mariadb.files.get(0)));
      s.append(events.get(0));
      s.append(events.get(1));
      // MariaDB's fake GTID_LIST at dump start: flagged artificial.
      BinlogEvent gtidList = events.get(2);
      assertThat(gtidList.type()).isEqualTo(EventType.GTID_LIST);
      byte[] fake = gtidList.toByteArray();
      EventHeader.parse(fake, 0).withFlags(EventHeader.LOG_EVENT_ARTIFICIAL_F).encodeTo(fake, 0);
      BinlogChecksum.patch(fake, 0, fake.length);
      long size = Files.size(other.resolve(mariadb.files.get(0)));
      assertThat(s.append(BinlogEvent.wrap(fake, true)).written()).isFalse();
      assertThat(Files.size(other.resolve(mariadb.files.get(0)))).isEqualTo(size);
      for (BinlogEvent e : events.subList(2, events.size())) {
        s.append(e);
      }
      assertThat(s.startStream())
          .isEqualTo(
              Optional.of(
                  new Position(mariadb.lastFile(), mariadb.bytes.get(mariadb.lastFile()).length)));
    }
  }

  @Test
  void aPrimaryThatMovedOnWithoutRotateLeavesTheFileAsItWas() throws IOException {
    // A primary that crashed in binlog.000002 and restarted into binlog.000003: no ROTATE, no STOP.
    String second = source.files.get(1);
    String third = source.files.get(2);
    long cut = source.boundariesOf(second).lowerKey((long) source.bytes.get(second).length - 100);
    List<BinlogEvent> firstTwo = source.dumpStream(Position.startOf(source.files.get(0)));
    for (BinlogEvent e : firstTwo) {
      if (e.header().logPos() > cut && store.currentFile().orElse("").equals(second)) {
        break;
      }
      store.append(e);
    }
    assertThat(store.readableEnd()).isEqualTo(new Position(second, cut));
    for (BinlogEvent e : source.dumpStream(Position.startOf(third))) {
      store.append(e);
    }
    store.sync().join();
    FileMetadata closed = store.file(second).orElseThrow();
    assertThat(closed.closed()).isTrue();
    assertThat(closed.ending()).isEqualTo(FileMetadata.Ending.NONE);
    // Not closed cleanly by the primary, but MySQL's crash recovery clears the in-use flag of that
    // file when it
    // restarts, and so does the store once the next file starts (InUseFlagTest; MariaDB keeps it
    // set).
    assertThat(Files.readAllBytes(dir.resolve(second)))
        .isEqualTo(Arrays.copyOf(source.bytes.get(second), (int) cut));
    assertThat(Files.readAllBytes(dir.resolve(third))).isEqualTo(source.bytes.get(third));
    store.close();
    store = BinlogStore.open(Stores.config(dir, source).build());
    assertThat(store.recoveryReport().clean()).isTrue();
    // Skip the third file: the store is now at its end, and a regular event may not go to the
    // closed second.
    Files.delete(dir.resolve(third));
    store.close();
    store = BinlogStore.open(Stores.config(dir, source).build());
    assertThat(store.startStream()).contains(Position.startOf(third));
    store.append(SourceBinlog.artificialRotate(second, cut, true));
    store.append(source.dumpFormat(second, true));
    BinlogEvent more = source.eventsOf(second, cut).get(0);
    assertRejectedAndNothingWritten(more, ContinuityException.class, second + " is closed");
  }
}
