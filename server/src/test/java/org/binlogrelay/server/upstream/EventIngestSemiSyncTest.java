package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Semi-sync packets: the header is stripped, the event stored, and a flagged event asks for an ack.
 */
class EventIngestSemiSyncTest {
  private static final UUID UUID_P = UUID.fromString("11111111-1111-1111-1111-111111111111");

  @TempDir Path dir;
  private BinlogStore store;
  private final List<Position[]> requests = new ArrayList<>();
  private EventIngest ingest;

  @BeforeEach
  void open() throws IOException {
    store = BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MYSQL).build());
    assertThat(store.startStream()).isEmpty();
    ingest =
        new EventIngest(
            store,
            ChecksumAlgorithm.CRC32,
            new IngestCounters(),
            Time.SYSTEM,
            "primary:3306",
            "binlog.000001:4",
            null,
            true,
            PrimaryFiles.INSTANCE,
            (p, s) -> requests.add(new Position[] {p, s}));
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  private static byte[] packet(BinlogEvent event, boolean ack) {
    byte[] bytes = event.toByteArray();
    byte[] p = new byte[bytes.length + 3];
    p[1] = (byte) 0xef;
    p[2] = (byte) (ack ? 1 : 0);
    System.arraycopy(bytes, 0, p, 3, bytes.length);
    return p;
  }

  @Test
  void aFlaggedTransactionEndAsksForAnAckOfThePrimarysPosition() throws IOException {
    SourceStream s =
        new SourceStream(1)
            .dumpStart("binlog.000001", 4)
            .formatDescription()
            .previousGtids("")
            .transaction(UUID_P, 1);
    List<BinlogEvent> events = s.events();
    for (int i = 0; i < events.size(); i++) {
      boolean last = i == events.size() - 1;
      ingest.accept(packet(events.get(i), last));
    }
    long end = events.get(events.size() - 1).header().logPos();
    assertThat(requests).hasSize(1);
    assertThat(requests.get(0)[0]).isEqualTo(new Position("binlog.000001", end));
    assertThat(requests.get(0)[1])
        .as("what must be durable first")
        .isEqualTo(new Position("binlog.000001", end));
    assertThat(store.readableEnd()).isEqualTo(new Position("binlog.000001", end));
  }

  @Test
  void aPacketWithoutTheHeaderStopsTheConnection() {
    SourceStream s = new SourceStream(1).dumpStart("binlog.000001", 4);
    byte[] bytes = s.events().get(0).toByteArray();
    byte[] plain = new byte[bytes.length + 1];
    System.arraycopy(bytes, 0, plain, 1, bytes.length);
    assertThatThrownBy(() -> ingest.accept(plain))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("semi-sync magic");
  }
}
