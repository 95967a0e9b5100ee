package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.storage.BinlogStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bytes of a dump stream from a store holding a real MySQL 9.7 server's files: the artificial
 * ROTATE, each file's FORMAT_DESCRIPTION (in-use flag cleared, log_pos and created cleared when
 * starting inside the file), every stored event in its own packet with consecutive sequence ids, an
 * artificial ROTATE before each next file, and EOF for a non-blocking dump. The copy path and the
 * zero-copy path put the same bytes on the wire.
 */
class DumpStreamTest {
  private static final int NON_BLOCKING = DumpRequest.BINLOG_DUMP_NON_BLOCK;
  private final StoreFixtures mysql = StoreFixtures.mysql();

  @TempDir Path dir;

  @AfterEach
  void releaseChannels() {
    Dumps.releaseAll();
  }

  @Test
  void nonBlockingDumpSendsTheArtificialRotateEveryStoredEventAndEof() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          Dumps.config().zeroCopy(false).build(),
          Dumps.byPosition("binlog.000001", 4, NON_BLOCKING, 0),
          Dumps.variables("master_binlog_checksum", "NONE", "source_binlog_checksum", "NONE"));
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());

      List<byte[]> expected = wholeStream(false);
      assertThat(packets).hasSize(expected.size() + 1);
      for (int i = 0; i < expected.size(); i++) {
        assertThat(packets.get(i).event()).as("packet %d", i).isEqualTo(expected.get(i));
      }
      assertThat(packets.get(expected.size()).payload())
          .as("EOF, status autocommit")
          .isEqualTo(new byte[] {(byte) 0xfe, 0, 0, 2, 0});
      assertConsecutiveSequenceIds(packets);
      assertThat(channel.isOpen()).as("closed after EOF").isFalse();
      assertThat(channel.finish()).isFalse();
    }
  }

  /**
   * A replica that takes everything at once (the channel writable again after every flush, as on
   * loopback) does not keep the event loop: after {@link ReplicaStream#ROUNDS_PER_TURN} rounds the
   * stream queues the rest behind the loop's other work, which runs before the dump ends; the bytes
   * are the same.
   */
  @Test
  void aFastReplicaLetsTheLoopsOtherWorkGoFirst() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      // every write fills the channel, every flush empties it: one event per round
      channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(1, 2));
      List<Integer> sentWhenOtherWorkRan = new ArrayList<>();
      ReplicaStream stream =
          Dumps.start(
              channel,
              store,
              Dumps.config().zeroCopy(false).maxBatchBytes(300).build(),
              Dumps.byPosition("binlog.000001", 4, NON_BLOCKING, 0),
              Dumps.variables("master_binlog_checksum", "NONE", "source_binlog_checksum", "NONE"),
              new DumpRegistry(),
              () ->
                  channel
                      .eventLoop()
                      .execute(() -> sentWhenOtherWorkRan.add(channel.outboundMessages().size())));
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());

      List<byte[]> expected = wholeStream(false);
      assertThat(expected.size()).isGreaterThan(3 * ReplicaStream.ROUNDS_PER_TURN);
      assertThat(sentWhenOtherWorkRan)
          .as("the other task ran while the dump was under way, not after it")
          .singleElement()
          .satisfies(n -> assertThat(n).isGreaterThan(0).isLessThan(expected.size()));
      assertThat(packets).hasSize(expected.size() + 1);
      for (int i = 0; i < expected.size(); i++) {
        assertThat(packets.get(i).event()).as("packet %d", i).isEqualTo(expected.get(i));
      }
      assertConsecutiveSequenceIds(packets);
      assertThat(stream.toString()).isNotEmpty();
    }
  }

  @Test
  void zeroCopyAndCopyPathsPutTheSameBytesOnTheWire() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      DumpRequest request = Dumps.byPosition("binlog.000001", 4, NON_BLOCKING, 0);
      EmbeddedChannel copied = Dumps.channel();
      Dumps.start(
          copied,
          store,
          Dumps.config().zeroCopy(false).maxBatchBytes(3000).build(),
          request,
          Dumps.mysqlReplica(0));
      Wire.Drained copy = drainAll(copied);
      EmbeddedChannel regions = Dumps.channel();
      Dumps.start(
          regions,
          store,
          Dumps.config().zeroCopyMinEventBytes(1).maxBatchBytes(3000).build(),
          request,
          Dumps.mysqlReplica(0));
      Wire.Drained zero = drainAll(regions);

      assertThat(copy.regions()).isZero();
      assertThat(zero.regions())
          .as("every event but the FORMAT_DESCRIPTIONs as a region")
          .isEqualTo(mysql.files.stream().mapToInt(f -> mysql.events(f).size() - 1).sum());
      assertThat(zero.bytes()).isEqualTo(copy.bytes());
      assertThat(Wire.packets(zero.bytes())).hasSize(wholeStream(true).size() + 1);
    }
  }

  @Test
  void startingInsideAFileSendsItsFormatDescriptionWithLogPosAndCreatedCleared() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      String file = "binlog.000002";
      int third = 3;
      long start = mysql.eventStarts(file).get(third);
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          Dumps.config().build(),
          Dumps.byPosition(file, start, 0, 7),
          Dumps.mysqlReplica(0));
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());

      assertThat(packets.get(0).event())
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, file, start, true));
      byte[] fde = packets.get(1).event();
      byte[] stored = mysql.events(file).get(0);
      assertThat(LittleEndian.u32(fde, EventHeader.LOG_POS_OFFSET)).isZero();
      assertThat(LittleEndian.u32(fde, EventHeader.SIZE + 2 + 50)).as("created").isZero();
      assertThat(fde[EventHeader.FLAGS_OFFSET] & EventHeader.LOG_EVENT_BINLOG_IN_USE_F).isZero();
      assertThat(BinlogChecksum.verify(fde, 0, fde.length)).as("CRC32 recomputed").isTrue();
      assertThat(fde.length).isEqualTo(stored.length);
      List<byte[]> events = mysql.events(file);
      for (int i = third; i < events.size(); i++) {
        assertThat(packets.get(2 + i - third).event()).isEqualTo(events.get(i));
      }
      // then binlog.000003 from its start, its FORMAT_DESCRIPTION as stored but with the in-use
      // flag cleared
      int next = 2 + events.size() - third;
      assertThat(packets.get(next).event())
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, "binlog.000003", 4, true));
      assertThat(packets.get(next + 1).event())
          .isEqualTo(withInUseCleared(mysql.events("binlog.000003").get(0)));
      assertThat(packets).hasSize(next + 1 + mysql.events("binlog.000003").size());
      assertThat(channel.isOpen()).as("a blocking dump waits").isTrue();
    }
  }

  @Test
  void theReplicasChecksumDecidesTheFirstRotatesChecksumOnly() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      EmbeddedChannel none = Dumps.channel();
      Dumps.start(
          none,
          store,
          Dumps.config().build(),
          Dumps.byPosition("binlog.000002", 4, NON_BLOCKING, 0),
          Dumps.variables("source_binlog_checksum", "NONE"));
      List<Wire.Packet> packets = Wire.packets(Wire.drain(none).bytes());
      assertThat(packets.get(0).event())
          .as("no CRC32 on the first ROTATE for a replica that said NONE")
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, "binlog.000002", 4, false));
      assertThat(packets.get(1).event())
          .as("events as stored, CRC32 included")
          .isEqualTo(withInUseCleared(mysql.events("binlog.000002").get(0)));
      Wire.Packet nextRotate = packets.get(1 + mysql.events("binlog.000002").size());
      assertThat(nextRotate.event())
          .as("later ROTATEs follow the file's checksum")
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, "binlog.000003", 4, true));
    }
  }

  @Test
  void aReplicaThatSetNoChecksumIsRefusedAsMysqlRefusesIt() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          Dumps.config().build(),
          Dumps.byPosition("binlog.000001", 4, 0, 9),
          Dumps.variables());
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
      assertThat(packets).hasSize(2);
      assertThat(packets.get(0).event())
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, "binlog.000001", 4, false));
      long fdeEnd = 4L + mysql.events("binlog.000001").get(0).length;
      assertError(
          packets.get(1),
          2,
          1236,
          "Replica can not handle replication events with the checksum that source"
              + " is configured to log; the first event 'binlog.000001' at 4, the last event read from './binlog.000001'"
              + " at "
              + fdeEnd
              + ", the last byte read from './binlog.000001' at "
              + fdeEnd
              + ".");
      assertThat(channel.isOpen()).isFalse();
    }
  }

  /**
   * The whole stream of a dump from binlog.000001:4, as event bytes, for a replica with or without
   * CRC32.
   */
  private List<byte[]> wholeStream(boolean replicaChecksum) {
    List<byte[]> out = new ArrayList<>();
    boolean checksum = replicaChecksum;
    for (String file : mysql.files) {
      out.add(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, file, 4, checksum));
      for (byte[] event : mysql.events(file)) {
        out.add(
            event[EventHeader.TYPE_OFFSET] == EventType.FORMAT_DESCRIPTION.code()
                ? withInUseCleared(event)
                : event);
      }
      checksum = true;
    }
    return out;
  }

  static byte[] withInUseCleared(byte[] event) {
    byte[] copy = event.clone();
    copy[EventHeader.FLAGS_OFFSET] &= ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
    return copy;
  }

  /**
   * Drains until the stream stops writing (regions complete asynchronously, re-opening
   * writability).
   */
  static Wire.Drained drainAll(EmbeddedChannel channel) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int buffers = 0;
    int regions = 0;
    while (true) {
      channel.runPendingTasks();
      Wire.Drained d = Wire.drain(channel);
      channel.runPendingTasks();
      if (d.bytes().length == 0) {
        return new Wire.Drained(bytes.toByteArray(), buffers, regions);
      }
      bytes.writeBytes(d.bytes());
      buffers += d.buffers();
      regions += d.regions();
    }
  }

  static void assertConsecutiveSequenceIds(List<Wire.Packet> packets) {
    int expected = Dumps.FIRST_SEQUENCE_ID;
    for (int i = 0; i < packets.size(); i++) {
      assertThat(packets.get(i).sequenceId()).as("sequence id of packet %d", i).isEqualTo(expected);
      expected = (expected + packets.get(i).frames()) & 0xff;
    }
  }

  static void assertError(Wire.Packet packet, int sequenceId, int code, String message) {
    byte[] p = packet.payload();
    assertThat(packet.sequenceId()).isEqualTo(sequenceId);
    assertThat(p[0] & 0xff).as("ERR").isEqualTo(0xff);
    assertThat(LittleEndian.u16(p, 1)).isEqualTo(code);
    assertThat(new String(p, 3, 6, StandardCharsets.US_ASCII)).isEqualTo("#HY000");
    assertThat(new String(p, 9, p.length - 9, StandardCharsets.UTF_8)).isEqualTo(message);
  }
}
