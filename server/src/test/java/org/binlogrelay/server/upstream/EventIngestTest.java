package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.CorruptEventException;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packet-to-store path: bytes pass unchanged, and every kind of bad packet stops the
 * connection.
 */
class EventIngestTest {
  private static final Time FIXED =
      new Time() {
        @Override
        public long nanoseconds() {
          return 0;
        }

        @Override
        public long milliseconds() {
          return 1_700_000_000_000L;
        }
      };

  @TempDir Path dir;
  private BinlogStore store;
  private final IngestCounters counters = new IngestCounters();
  private EventIngest ingest;

  @BeforeEach
  void open() throws IOException {
    store = BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MYSQL).build());
    assertThat(store.startStream()).isEmpty();
    ingest =
        new EventIngest(
            store,
            ChecksumAlgorithm.CRC32,
            counters,
            FIXED,
            "primary:3306",
            Position.startOf("binlog.000001"));
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  /** The dump's first event: the primary's artificial ROTATE naming the file, with a CRC32. */
  private static byte[] artificialRotate() {
    EventHeader header =
        new EventHeader(0, EventType.ROTATE.code(), 1, 0, 0, EventHeader.LOG_EVENT_ARTIFICIAL_F);
    BinlogEvent event =
        BinlogEvent.assemble(header, new RotateEvent(4, "binlog.000001").encodeBody(), true);
    return packet(event.toByteArray());
  }

  private static byte[] packet(byte[] event) {
    byte[] p = new byte[event.length + 1];
    System.arraycopy(event, 0, p, 1, event.length);
    return p;
  }

  @Test
  void passesTheEventBytesThroughAndCountsThem() throws IOException {
    byte[] packet = artificialRotate();
    BinlogEvent event = ingest.accept(packet);
    assertThat(event.buffer()).as("no copy").isSameAs(packet);
    assertThat(event.offset()).isEqualTo(1);
    assertThat(counters.events).isEqualTo(1);
    assertThat(counters.bytes).isEqualTo(packet.length - 1);
    assertThat(counters.lastEventMillis).isEqualTo(FIXED.milliseconds());
    assertThat(ingest.madeProgress()).as("an artificial event is not written").isFalse();
  }

  @Test
  void aCorruptEventIsRefusedBeforeTheStoreSeesIt() {
    byte[] packet = artificialRotate();
    packet[packet.length - 6] ^= 0x01; // a bit of the file name
    assertThatThrownBy(() -> ingest.accept(packet))
        .isInstanceOf(CorruptEventException.class)
        .hasMessageContaining("CRC32");
    assertThat(counters.events).isZero();
    assertThat(store.files()).isEmpty();
  }

  @Test
  void error1236KeepsTheServersTextAndSaysWhatItMeans() {
    byte[] err =
        new ErrPacket(1236, "HY000", "Could not find first log file name in binary log index file")
            .encode();
    assertThatThrownBy(() -> ingest.accept(err))
        .isInstanceOfSatisfying(
            PrimaryErrorException.class,
            e -> {
              assertThat(e.code()).isEqualTo(1236);
              assertThat(e.serverMessage())
                  .isEqualTo("Could not find first log file name in binary log index file");
              assertThat(e.getMessage())
                  .startsWith(
                      "primary primary:3306 ended the dump requested from binlog.000001:4"
                          + " (before its first event): error 1236 (HY000): Could not find first log file name")
                  .contains(
                      "cannot continue from this primary without a gap: it needs binlog.000001:4");
            });
  }

  @Test
  void anEofPacketEndsTheDump() {
    assertThatThrownBy(() -> ingest.accept(new byte[] {(byte) 0xfe, 0, 0, 2, 0}))
        .isInstanceOf(EOFException.class)
        .hasMessageContaining("EOF packet");
  }

  @Test
  void anUnknownMarkerIsAProtocolError() {
    assertThatThrownBy(() -> ingest.accept(new byte[] {0x42, 1, 2}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("starts with 0x42");
    assertThatThrownBy(() -> ingest.accept(new byte[0])).isInstanceOf(ProtocolException.class);
  }

  @Test
  void aTruncatedEventIsRefused() {
    byte[] packet = artificialRotate();
    byte[] cut = Arrays.copyOf(packet, packet.length - 3);
    assertThatThrownBy(() -> ingest.accept(cut)).isInstanceOf(ProtocolException.class);
  }
}
