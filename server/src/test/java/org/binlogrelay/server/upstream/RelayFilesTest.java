package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.FileVerification;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new source's stream written into files of the relay's naming, against a real store: the store
 * accepts it as a continuation, the old files stay as they were, the new files carry the relay's
 * server_id, the store's GTIDs and rewritten positions with valid checksums.
 */
class RelayFilesTest {
  private static final long P = 11;
  private static final long R = 22;
  private static final long RELAY = 9001;
  private static final UUID P_UUID = UUID.fromString("11111111-1111-1111-1111-111111111111");
  private static final UUID R_UUID = UUID.fromString("22222222-2222-2222-2222-222222222222");

  @TempDir Path dir;
  private BinlogStore store;

  @BeforeEach
  void storeWithTheOldPrimarysFile() throws IOException {
    store = BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MYSQL).build());
    assertThat(store.startStream()).isEmpty();
    SourceStream p =
        new SourceStream(P)
            .dumpStart("binlog.000003", 4)
            .formatDescription()
            .previousGtids("")
            .transaction(P_UUID, 1)
            .transaction(P_UUID, 2);
    appendAll(p.events());
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  @Test
  void continuesInRelayNamedFilesAcrossTheSourcesRotation() throws Exception {
    byte[] oldFile = storedBytes("binlog.000003");
    StoreTail tail = StoreTail.read(store, store.startStream().orElseThrow()).orElseThrow();
    assertThat(tail.writtenBy()).isEqualTo(P);
    assertThat(tail.nextFile()).isEqualTo("binlog.000004");

    SourceStream r =
        new SourceStream(R)
            .dumpStart("mysql-bin.000001", 4)
            .formatDescription()
            .previousGtids(P_UUID + ":1-2")
            .transaction(R_UUID, 1)
            .heartbeat()
            .rotate("mysql-bin.000002")
            .formatDescription()
            .previousGtids(P_UUID + ":1-2," + R_UUID + ":1")
            .transaction(R_UUID, 2);
    RelayFiles relay =
        new RelayFiles(tail, RELAY, new MysqlPrimaryFlavor("9.7.4"), this::gtidsUpTo);
    feed(relay, r.events());

    assertThat(store.files())
        .extracting(FileMetadata::name)
        .containsExactly("binlog.000003", "binlog.000004", "binlog.000005");
    // The old primary's file keeps its bytes, except that its FORMAT_DESCRIPTION's in-use flag
    // (file offset 21)
    // is cleared, as the primary's own copy is once it shuts down or restarts after a crash
    // (docs/storage.md).
    byte[] asThePrimaryWillHaveIt = oldFile.clone();
    asThePrimaryWillHaveIt[21] &= ~0x01;
    assertThat(storedBytes("binlog.000003"))
        .as("the old primary's file, flag cleared")
        .isEqualTo(asThePrimaryWillHaveIt);
    assertThat(store.executedGtids())
        .isEqualTo(MysqlGtidSet.parse(P_UUID + ":1-2," + R_UUID + ":1-2"));
    FileMetadata four = store.file("binlog.000004").orElseThrow();
    assertThat(four.gtidsAtStart()).isEqualTo(MysqlGtidSet.parse(P_UUID + ":1-2"));
    assertThat(four.ending()).isEqualTo(FileMetadata.Ending.ROTATE);
    assertThat(four.nextFile()).isEqualTo("binlog.000005");
    assertThat(store.file("binlog.000005").orElseThrow().gtidsAtStart())
        .isEqualTo(MysqlGtidSet.parse(P_UUID + ":1-2," + R_UUID + ":1"));
    for (FileMetadata f : store.files()) {
      FileVerification v = store.verify(f.name());
      assertThat(v.problem()).as(f.name()).isNull();
    }
    assertThat(serverIdOfFormat("binlog.000004")).isEqualTo(RELAY);
    assertThat(serverIdOfFormat("binlog.000005")).isEqualTo(RELAY);
    assertThat(relay.position()).isEqualTo(store.readableEnd());

    StoreTail again = StoreTail.read(store, store.startStream().orElseThrow()).orElseThrow();
    assertThat(again.writtenBy())
        .as("the relay's own file marks the store as relay-named")
        .isEqualTo(RELAY);
    assertThat(again.nextFile()).isEqualTo("binlog.000006");
  }

  @Test
  void aStopOfTheSourceClosesTheRelayFileAndItsNextFileStartsAnother() throws Exception {
    StoreTail tail = StoreTail.read(store, store.startStream().orElseThrow()).orElseThrow();
    SourceStream r =
        new SourceStream(R)
            .dumpStart("mysql-bin.000007", 4)
            .formatDescription()
            .previousGtids(P_UUID + ":1-2")
            .transaction(R_UUID, 1)
            .stop("mysql-bin.000008")
            .formatDescription()
            .previousGtids(P_UUID + ":1-2," + R_UUID + ":1")
            .transaction(R_UUID, 2);
    feed(new RelayFiles(tail, RELAY, new MysqlPrimaryFlavor("9.7.4"), this::gtidsUpTo), r.events());
    assertThat(store.files())
        .extracting(FileMetadata::name)
        .containsExactly("binlog.000003", "binlog.000004", "binlog.000005");
    assertThat(store.file("binlog.000004").orElseThrow().ending())
        .isEqualTo(FileMetadata.Ending.STOP);
    assertThat(store.executedGtids())
        .isEqualTo(MysqlGtidSet.parse(P_UUID + ":1-2," + R_UUID + ":1-2"));
  }

  @Test
  void aMidFileStartOfTheSourceIsRewrittenToo() throws Exception {
    StoreTail tail = StoreTail.read(store, store.startStream().orElseThrow()).orElseThrow();
    SourceStream r =
        new SourceStream(R)
            .dumpStart("mysql-bin.000001", 4000)
            .formatDescription()
            .transaction(R_UUID, 5);
    feed(new RelayFiles(tail, RELAY, new MysqlPrimaryFlavor("9.7.4"), this::gtidsUpTo), r.events());
    assertThat(store.executedGtids())
        .isEqualTo(MysqlGtidSet.parse(P_UUID + ":1-2," + R_UUID + ":5"));
    assertThat(store.verify("binlog.000004").problem()).isNull();
  }

  @Test
  void refusesEventsBeforeTheFormatDescriptionAndAFileStartInTheMiddleOfAFile() throws Exception {
    StoreTail tail = StoreTail.read(store, store.startStream().orElseThrow()).orElseThrow();
    SourceStream r =
        new SourceStream(R)
            .dumpStart("mysql-bin.000001", 4)
            .formatDescription()
            .previousGtids("")
            .transaction(R_UUID, 1);
    List<BinlogEvent> events = r.events();
    RelayFiles early =
        new RelayFiles(tail, RELAY, new MysqlPrimaryFlavor("9.7.4"), this::gtidsUpTo);
    FormatDescriptionEvent format = FormatDescriptionEvent.parse(events.get(1));
    assertThatThrownBy(() -> early.map(events.get(3), format))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("FORMAT_DESCRIPTION must come first");

    RelayFiles twice =
        new RelayFiles(tail, RELAY, new MysqlPrimaryFlavor("9.7.4"), this::gtidsUpTo);
    twice.map(events.get(1), format);
    SourceStream again = new SourceStream(R).dumpStart("mysql-bin.000001", 4).formatDescription();
    assertThatThrownBy(() -> twice.map(again.events().get(1), format))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("in the middle of a file");
  }

  @Test
  void eventsItMakesCarryValidChecksumsAndTheRelaysServerId() throws Exception {
    StoreTail tail = StoreTail.read(store, store.startStream().orElseThrow()).orElseThrow();
    SourceStream r = new SourceStream(R).dumpStart("mysql-bin.000001", 4).formatDescription();
    RelayFiles relay =
        new RelayFiles(tail, RELAY, new MysqlPrimaryFlavor("9.7.4"), this::gtidsUpTo);
    List<BinlogEvent> out =
        relay.map(r.events().get(1), FormatDescriptionEvent.parse(r.events().get(1)));
    assertThat(out).hasSize(3);
    assertThat(out.get(0).header().hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F)).isTrue();
    BinlogEvent fde = out.get(1);
    assertThat(fde.header().serverId()).isEqualTo(RELAY);
    assertThat(fde.header().logPos()).isEqualTo(4 + fde.length());
    assertThat(fde.checksumMatches()).isTrue();
    BinlogEvent previous = out.get(2);
    assertThat(previous.header().logPos()).isEqualTo(4 + fde.length() + previous.length());
    assertThat(previous.checksumMatches()).isTrue();
  }

  private GtidSet gtidsUpTo(Position end) throws IOException {
    try {
      store.sync().get(10, TimeUnit.SECONDS);
      store.readable().whenReached(end).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IOException(e);
    }
    return store.executedGtids();
  }

  private void feed(RelayFiles mapping, List<BinlogEvent> source) throws IOException {
    FormatDescriptionEvent format = null;
    for (BinlogEvent e : source) {
      if (e.type() == EventType.FORMAT_DESCRIPTION) {
        format = FormatDescriptionEvent.parse(e);
      }
      appendAll(mapping.map(e, format));
    }
  }

  private void appendAll(List<BinlogEvent> events) throws IOException {
    for (BinlogEvent e : events) {
      store.append(e);
    }
  }

  private byte[] storedBytes(String name) throws Exception {
    store.sync().get(10, TimeUnit.SECONDS);
    return Files.readAllBytes(dir.resolve(name));
  }

  private long serverIdOfFormat(String name) throws IOException {
    byte[] bytes = Files.readAllBytes(dir.resolve(name));
    return EventHeader.parse(bytes, 4).serverId();
  }
}
