package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.server.serving.DumpStreamTest.withInUseCleared;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.storage.BinlogStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GTID starts: MySQL skips the transactions the replica has and tells it how far it skipped with a
 * heartbeat before the next event; MariaDB skips per domain up to the replica's GTID and sends a
 * fake GTID_LIST after it; both clear {@code created} in the FORMAT_DESCRIPTION while skipping.
 */
class GtidDumpTest {
  private static final int CREATED = EventHeader.SIZE + 2 + 50;
  private final StoreFixtures mysql = StoreFixtures.mysql();
  private final StoreFixtures mariadb = StoreFixtures.mariadb();

  @TempDir Path dir;

  @AfterEach
  void releaseChannels() {
    Dumps.releaseAll();
  }

  @Test
  void mysqlSkipsWhatTheReplicaHasAndSendsAHeartbeatForIt() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      String file = "binlog.000002";
      MysqlGtidSet replica =
          MysqlGtidSet.parse(
              mysql.expected.getProperty("file.binlog.000002.previous_gtids")
                  + ",3b1e7c52-0000-4000-8000-00000000f001:mytag:1");
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          Dumps.config().build(),
          Dumps.byGtids(replica, DumpRequest.USE_HEARTBEAT_EVENT_V2, 7),
          Dumps.mysqlReplica(0));
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());

      List<byte[]> events = mysql.events(file);
      List<Long> starts = mysql.eventStarts(file);
      int secondGtid = indexOfGtid(events, 2);
      List<byte[]> expected = new ArrayList<>();
      expected.add(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, file, 4, true));
      expected.add(createdCleared(events.get(0)));
      expected.add(events.get(1));
      expected.add(heartbeatV2(file, starts.get(secondGtid)));
      expected.addAll(events.subList(secondGtid, events.size()));
      expected.add(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, "binlog.000003", 4, true));
      List<byte[]> third = mysql.events("binlog.000003");
      expected.add(createdCleared(third.get(0)));
      expected.addAll(third.subList(1, third.size()));

      assertThat(
              packets.stream()
                  .map(p -> p.eventType() + "@" + LittleEndian.u32(p.event(), 13))
                  .toList())
          .as("types")
          .isEqualTo(
              expected.stream().map(e -> (e[4] & 0xff) + "@" + LittleEndian.u32(e, 13)).toList());
      assertThat(packets).hasSize(expected.size());
      for (int i = 0; i < expected.size(); i++) {
        assertThat(packets.get(i).event()).as("packet %d", i).isEqualTo(expected.get(i));
      }
      assertThat(LittleEndian.u32(events.get(0), CREATED))
          .as("the stored FORMAT_DESCRIPTION had created set")
          .isNotZero();
      DumpStreamTest.assertConsecutiveSequenceIds(packets);
    }
  }

  @Test
  void mariadbSkipsToTheReplicasGtidAndSendsAFakeGtidListAfterIt() throws Exception {
    try (BinlogStore store = mariadb.store(dir)) {
      String file = "mariadb-bin.000002";
      String state = "0-1-13,2-1-2";
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          Dumps.config().build(),
          Dumps.mariadbGtid(MariadbGtidSet.parsePosition(state), 2, 7),
          Dumps.mariadbReplica(0, state));
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());

      // mariadb-bin.000002 holds 0-1-12 .. 0-1-16 and 2-1-3; its GTID_LIST ends domain 2 with
      // 2-1-2.
      List<byte[]> events = mariadb.events(file);
      List<Long> starts = mariadb.eventStarts(file);
      int third = indexOfGtid(events, 3);
      List<byte[]> expected = new ArrayList<>();
      expected.add(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, file, 4, true));
      expected.add(createdCleared(events.get(0)));
      expected.add(events.get(1));
      expected.add(events.get(2));
      expected.add(
          ArtificialEvents.gtidList(
              Dumps.RELAY_SERVER_ID, List.of(new MariadbGtid(0, 1, 13)), starts.get(third), true));
      expected.addAll(events.subList(third, events.size()));
      expected.add(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, "mariadb-bin.000003", 4, true));
      List<byte[]> next = mariadb.events("mariadb-bin.000003");
      expected.add(withInUseCleared(next.get(0)));
      expected.addAll(next.subList(1, next.size()));

      assertThat(packets).hasSize(expected.size());
      for (int i = 0; i < expected.size(); i++) {
        assertThat(packets.get(i).event()).as("packet %d", i).isEqualTo(expected.get(i));
      }
      byte[] fake = packets.get(4).event();
      assertThat(fake[EventHeader.TYPE_OFFSET] & 0xff).isEqualTo(EventType.GTID_LIST.code());
      assertThat(LittleEndian.u16(fake, EventHeader.FLAGS_OFFSET))
          .isEqualTo(EventHeader.LOG_EVENT_ARTIFICIAL_F);
    }
  }

  @Test
  void mariadbLeavesAnnotateRowsOutUnlessTheReplicaAskedForThem() throws Exception {
    try (BinlogStore store = mariadb.store(dir)) {
      int annotate = EventType.ANNOTATE_ROWS.code();
      long inFile =
          mariadb.events("mariadb-bin.000002").stream()
              .filter(e -> (e[4] & 0xff) == annotate)
              .count();
      assertThat(inFile).isPositive();
      for (int flags :
          new int[] {DumpRequest.BINLOG_DUMP_NON_BLOCK, DumpRequest.BINLOG_DUMP_NON_BLOCK | 2}) {
        EmbeddedChannel channel = Dumps.channel();
        Dumps.start(
            channel,
            store,
            Dumps.config().build(),
            Dumps.byPosition("mariadb-bin.000002", 4, flags, 0),
            Dumps.mariadbReplica(0, null));
        List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
        long sent =
            packets.stream().filter(p -> p.first() == 0 && p.eventType() == annotate).count();
        long all =
            inFile
                + mariadb.events("mariadb-bin.000003").stream()
                    .filter(e -> (e[4] & 0xff) == annotate)
                    .count();
        assertThat(sent)
            .as("ANNOTATE_ROWS with flags %d", flags)
            .isEqualTo((flags & 2) != 0 ? all : 0);
      }
    }
  }

  /** The index of the {@code n}th GTID event (1-based) of a file's events, MySQL or MariaDB. */
  static int indexOfGtid(List<byte[]> events, int n) {
    int seen = 0;
    for (int i = 0; i < events.size(); i++) {
      int type = events.get(i)[EventHeader.TYPE_OFFSET] & 0xff;
      if (type == EventType.GTID.code()
          || type == EventType.GTID_TAGGED.code()
          || type == EventType.MARIADB_GTID.code()) {
        if (++seen == n) {
          return i;
        }
      }
    }
    throw new AssertionError("no GTID event number " + n);
  }

  private static byte[] createdCleared(byte[] fde) {
    byte[] copy = withInUseCleared(fde);
    LittleEndian.put32(copy, CREATED, 0);
    BinlogChecksum.patch(copy, 0, copy.length);
    return copy;
  }

  /**
   * HEARTBEAT_V2 laid out by hand: header, then fields 1 (name), 2 (packed position), end mark,
   * CRC32.
   */
  static byte[] heartbeatV2(String file, long position) {
    byte[] name = file.getBytes(StandardCharsets.US_ASCII);
    byte[] pos =
        position < 251
            ? new byte[] {(byte) position}
            : position < 1 << 16
                ? new byte[] {(byte) 0xfc, (byte) position, (byte) (position >> 8)}
                : new byte[] {
                  (byte) 0xfd, (byte) position, (byte) (position >> 8), (byte) (position >> 16)
                };
    int size = 19 + 1 + 1 + name.length + 1 + 1 + pos.length + 1 + 4;
    byte[] e = new byte[size];
    e[4] = 41;
    LittleEndian.put32(e, 5, Dumps.RELAY_SERVER_ID);
    LittleEndian.put32(e, 9, size);
    LittleEndian.put32(e, 13, position);
    int at = 19;
    e[at++] = 1;
    e[at++] = (byte) name.length;
    System.arraycopy(name, 0, e, at, name.length);
    at += name.length;
    e[at++] = 2;
    e[at++] = (byte) pos.length;
    System.arraycopy(pos, 0, e, at, pos.length);
    at += pos.length;
    e[at] = 0;
    BinlogChecksum.patch(e, 0, size);
    return e;
  }
}
