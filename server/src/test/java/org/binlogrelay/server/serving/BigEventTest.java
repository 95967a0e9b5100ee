package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.StoreConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Events of 16 MiB and more: the payload (0x00 marker plus event) is cut into frames of 0xFFFFFF
 * bytes, the marker counting in the first frame, with an empty last frame when the payload is a
 * multiple of 0xFFFFFF; sequence ids go on across frames. Copy path (in 256 KiB chunks) and
 * zero-copy path give the same bytes.
 */
class BigEventTest {
  private static final int M = PacketSequence.MAX_FRAME;
  private static final UUID SOURCE = UUID.fromString("3b1e7c52-0000-4000-8000-00000000f001");
  private static final int[] SIZES = {M - 1, M, 2 * M - 1, 1000};

  @TempDir Path dir;

  @AfterEach
  void releaseChannels() {
    Dumps.releaseAll();
  }

  @Test
  void bigEventsAreSplitIntoFramesAndBothPathsAgree() throws Exception {
    Synthetic binlog = new Synthetic(StoreFixtures.mysql());
    binlog.startFile("binlog.000001");
    for (int i = 0; i < SIZES.length; i++) {
      binlog.transaction(i + 1, SIZES[i]);
    }
    try (BinlogStore store =
        BinlogStore.open(
            StoreConfig.builder(dir, binlog.fixture.flavor).maxEventSize(64 << 20).build())) {
      store.startStream();
      for (BinlogEvent e : binlog.events) {
        store.append(e);
      }
      DumpRequest request =
          Dumps.byPosition("binlog.000001", 4, DumpRequest.BINLOG_DUMP_NON_BLOCK, 0);
      EmbeddedChannel copied = Dumps.channel();
      Dumps.start(
          copied, store, Dumps.config().zeroCopy(false).build(), request, Dumps.mysqlReplica(0));
      byte[] copy = DumpStreamTest.drainAll(copied).bytes();
      EmbeddedChannel regions = Dumps.channel();
      Dumps.start(
          regions,
          store,
          Dumps.config().zeroCopyMinEventBytes(1 << 20).build(),
          request,
          Dumps.mysqlReplica(0));
      Wire.Drained zero = DumpStreamTest.drainAll(regions);
      // One region per frame that carries event bytes: M-1 (full frame, empty frame), M (two), 2M-1
      // (two, empty).
      assertThat(zero.regions()).isEqualTo(1 + 2 + 2);
      assertThat(Arrays.equals(zero.bytes(), copy)).as("same bytes on both paths").isTrue();

      List<Wire.Packet> packets = Wire.packets(copy);
      DumpStreamTest.assertConsecutiveSequenceIds(packets);
      List<byte[]> stored = new ArrayList<>();
      for (BinlogEvent e : binlog.events.subList(1, binlog.events.size())) {
        stored.add(e.toByteArray());
      }
      assertThat(packets).hasSize(1 + stored.size() + 1);
      int big = 0;
      for (int i = 0; i < stored.size(); i++) {
        Wire.Packet p = packets.get(1 + i);
        byte[] expected = stored.get(i);
        if (i == 0) {
          expected = DumpStreamTest.withInUseCleared(expected);
        }
        assertThat(Arrays.equals(p.event(), expected)).as("event %d", i).isTrue();
        if (expected.length >= M - 1) {
          long payload = expected.length + 1L;
          assertThat(p.frames())
              .as("frames of a %d-byte event", expected.length)
              .isEqualTo((int) (payload / M) + 1);
          big++;
        } else {
          assertThat(p.frames()).isEqualTo(1);
        }
      }
      assertThat(big).isEqualTo(3);
    }
  }

  /**
   * A MySQL binlog made up here: the fixture server's FORMAT_DESCRIPTION, then GTID, BEGIN, query,
   * XID.
   */
  static final class Synthetic {
    final StoreFixtures fixture;
    final List<BinlogEvent> events = new ArrayList<>();
    private final byte[] formatBody;
    private long position;

    Synthetic(StoreFixtures fixture) {
      this.fixture = fixture;
      byte[] fde = fixture.events(fixture.files.get(0)).get(0);
      this.formatBody = Arrays.copyOfRange(fde, EventHeader.SIZE, fde.length - 4);
    }

    void startFile(String name) {
      events.add(StoreFixtures.rotate(name));
      position = 4;
      event(EventType.FORMAT_DESCRIPTION, formatBody);
      event(EventType.PREVIOUS_GTIDS, MysqlGtidSet.empty().encode());
    }

    /** A transaction whose query event is exactly {@code querySize} bytes. */
    void transaction(long gno, int querySize) {
      event(
          EventType.GTID,
          new ByteWriter()
              .u8(0)
              .u64be(SOURCE.getMostSignificantBits())
              .u64be(SOURCE.getLeastSignificantBits())
              .u64(gno)
              .u8(2)
              .u64(0)
              .u64(1)
              .toByteArray());
      event(EventType.QUERY, query("BEGIN"));
      int sql = querySize - EventHeader.SIZE - 4 - query("").length;
      byte[] text = new byte[sql];
      Arrays.fill(text, (byte) 'x');
      byte[] insert = "INSERT INTO t VALUES ('".getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(insert, 0, text, 0, Math.min(insert.length, sql));
      event(EventType.QUERY, query(new String(text, StandardCharsets.US_ASCII)));
      event(EventType.XID, new ByteWriter().u64(gno).toByteArray());
    }

    private static byte[] query(String sql) {
      byte[] db = "fx".getBytes(StandardCharsets.US_ASCII);
      return new ByteWriter()
          .u32(7)
          .u32(0)
          .u8(db.length)
          .u16(0)
          .u16(0)
          .bytes(db)
          .u8(0)
          .bytes(sql.getBytes(StandardCharsets.US_ASCII))
          .toByteArray();
    }

    private void event(EventType type, byte[] body) {
      int size = EventHeader.SIZE + body.length + 4;
      EventHeader h = new EventHeader(1_795_000_000L, type.code(), 1, size, position + size, 0);
      events.add(BinlogEvent.assemble(h, body, true));
      position += size;
    }
  }
}
