package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;
import java.util.List;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.storage.BinlogStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dump packets exactly as third-party binlog libraries send them, decoded and served: each stream
 * starts where MySQL 9.7 and MariaDB 10.11 start it, with the artificial ROTATE naming that file
 * and position. The names end with NUL bytes (zongji) or are all NUL bytes
 * (python-mysql-replication), which both servers read as C strings.
 */
class LibraryDumpRequestsTest {
  private final StoreFixtures mysql = StoreFixtures.mysql();
  private final StoreFixtures mariadb = StoreFixtures.mariadb();

  @TempDir Path dir;

  @AfterEach
  void releaseChannels() {
    Dumps.releaseAll();
  }

  @Test
  void zongjiByFileAndPositionStartsInThatFile() throws Exception {
    for (StoreFixtures fixture : List.of(mysql, mariadb)) {
      try (BinlogStore store = fixture.store(dir.resolve(fixture.directory))) {
        String second = fixture.files.get(1);
        byte[] packet =
            new ByteWriter().u8(0x12).u32(4).u16(0).u32(77).string(second).u8(0).toByteArray();
        assertThat(firstEvent(store, DumpRequest.decode(packet), fixture))
            .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, second, 4, true));
      }
    }
  }

  @Test
  void anEmptyNameStartsInTheFirstFileOnBothFlavours() throws Exception {
    // zongji without a file ("\0") and python-mysql-replication on MariaDB ("\0\0\0\0"): the
    // servers' find_log_pos
    // without a name, i.e. the first file of the index.
    for (StoreFixtures fixture : List.of(mysql, mariadb)) {
      try (BinlogStore store = fixture.store(dir.resolve(fixture.directory))) {
        for (int zeros : new int[] {1, 4}) {
          byte[] packet =
              new ByteWriter().u8(0x12).u32(4).u16(0).u32(78).bytes(new byte[zeros]).toByteArray();
          assertThat(firstEvent(store, DumpRequest.decode(packet), fixture))
              .isEqualTo(
                  ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, fixture.files.get(0), 4, true));
        }
      }
    }
  }

  @Test
  void pythonAutoPositionOnMysqlIsAGtidStartWhateverTheZeroName() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      byte[] data = MysqlGtidSet.empty().encode();
      byte[] packet =
          new ByteWriter()
              .u8(0x1e)
              .u16(4)
              .u32(79)
              .u32(3)
              .bytes(new byte[3])
              .u64(4)
              .u32(data.length)
              .bytes(data)
              .toByteArray();
      DumpRequest request = DumpRequest.decode(packet);
      assertThat(request.binlogFile()).isEmpty();
      // An empty set starts in the first file, as MySQL's find_first_log_not_in_gtid_set does.
      assertThat(firstEvent(store, request, mysql))
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, mysql.files.get(0), 4, true));
    }
  }

  @Test
  void mariadbGtidStartIgnoresTheZeroName() throws Exception {
    try (BinlogStore store = mariadb.store(dir)) {
      byte[] packet =
          new ByteWriter().u8(0x12).u32(4).u16(0).u32(80).bytes(new byte[4]).toByteArray();
      DumpRequest request =
          DumpRequest.decode(packet).withStartGtids(MariadbGtidSet.parsePosition(""));
      assertThat(firstEvent(store, request, mariadb))
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, mariadb.files.get(0), 4, true));
    }
  }

  private static byte[] firstEvent(BinlogStore store, DumpRequest request, StoreFixtures fixture) {
    EmbeddedChannel channel = Dumps.channel();
    Dumps.start(
        channel,
        store,
        Dumps.config().build(),
        request,
        fixture.flavor == GtidFlavor.MYSQL ? Dumps.mysqlReplica(0) : Dumps.mariadbReplica(0, null));
    List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
    assertThat(packets).as("packets of %s", request).isNotEmpty();
    return packets.get(0).event();
  }
}
