package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MariaDB 11.4+ (binlog_legacy_event_pos=OFF) sends the events inside a transaction with log_pos 0,
 * from the real MariaDB 11.8 fixture: the store writes them where their lengths put them, skips
 * such an event outside a transaction (made up for the dump), and a lost or extra one shows at the
 * transaction's commit as a gap or an overlap, with nothing written.
 */
class UnpositionedEventsTest {
  @TempDir Path dir;

  private final SourceBinlog source = SourceBinlog.mariadb118();
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

  /** Feeds up to the first unpositioned event of a transaction and returns its index, not fed. */
  private int feedToFirstUnpositioned() throws IOException {
    while (!(stream.get(next).header().logPos() == 0
        && stream.get(next).type() != EventType.FORMAT_DESCRIPTION
        && stream.get(next).type() != EventType.ROTATE)) {
      store.append(stream.get(next++));
    }
    return next;
  }

  @Test
  void theFixtureHasUnpositionedEventsInsideTransactions() throws IOException {
    int at = feedToFirstUnpositioned();
    assertThat(stream.get(at - 1).type())
        .as("the transaction's GTID event")
        .isEqualTo(EventType.MARIADB_GTID);
    assertThat(stream.get(at - 1).header().logPos()).isNotZero();
  }

  @Test
  void theyAreWrittenWhereTheirLengthsPutThemAndTheFilesAreThePrimarys() throws IOException {
    feedToFirstUnpositioned();
    Appended a = store.append(stream.get(next++));
    assertThat(a.written()).isTrue();
    while (next < stream.size()) {
      store.append(stream.get(next++));
    }
    store.sync().join();
    for (String f : source.files) {
      assertThat(Files.readAllBytes(dir.resolve(f))).as(f).isEqualTo(source.bytes.get(f));
    }
    assertThat(store.executedGtids()).isEqualTo(source.expectedFinalGtids());
  }

  @Test
  void aLostUnpositionedEventIsAGapAtTheCommit() throws IOException {
    feedToFirstUnpositioned();
    next++; // the primary "lost" it
    Position readable = store.readableEnd();
    assertThatThrownBy(
            () -> {
              while (stream.get(next).header().logPos() == 0) {
                store.append(stream.get(next++));
              }
              store.append(stream.get(next));
            })
        .isInstanceOf(ContinuityException.class)
        .hasMessageContaining("gap");
    assertThat(store.readableEnd()).isEqualTo(readable);
    assertThat(store.startStream())
        .as("the next connection resumes before the transaction")
        .contains(readable);
  }

  @Test
  void aRepeatedUnpositionedEventIsAnOverlapAtTheCommit() throws IOException {
    int at = feedToFirstUnpositioned();
    store.append(stream.get(at));
    store.append(stream.get(at)); // sent twice
    next = at + 1;
    assertThatThrownBy(
            () -> {
              while (stream.get(next).header().logPos() == 0) {
                store.append(stream.get(next++));
              }
              store.append(stream.get(next));
            })
        .isInstanceOf(ContinuityException.class)
        .hasMessageContaining("overlap");
  }

  @Test
  void outsideATransactionAnUnpositionedEventIsSkipped() throws IOException {
    int at = feedToFirstUnpositioned();
    // back up to the boundary before the GTID event: replay the unpositioned event there, as if
    // made up
    store.startStream();
    Position boundary = store.readableEnd();
    List<BinlogEvent> again = source.dumpStream(boundary);
    for (BinlogEvent e : again.subList(0, 2)) {
      store.append(e); // artificial ROTATE, mid-file FORMAT_DESCRIPTION
    }
    Appended skipped = store.append(stream.get(at));
    assertThat(skipped.written()).isFalse();
    for (BinlogEvent e : again.subList(2, again.size())) {
      store.append(e);
    }
    store.sync().join();
    for (String f : source.files) {
      assertThat(Files.readAllBytes(dir.resolve(f))).as(f).isEqualTo(source.bytes.get(f));
    }
  }
}
