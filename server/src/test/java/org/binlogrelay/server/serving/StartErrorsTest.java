package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.server.serving.DumpStreamTest.assertError;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.downstream.sql.SessionVariables;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests a server refuses get the server's error code and text, at the same point of the stream:
 * start checks before anything is sent (no coordinates), read errors after the ROTATE and
 * FORMAT_DESCRIPTION (with the coordinates suffix each server writes).
 */
class StartErrorsTest {
  private static final UUID PRIMARY = UUID.fromString("3b1e7c52-0000-4000-8000-00000000f001");
  private final StoreFixtures mysql = StoreFixtures.mysql();
  private final StoreFixtures mariadb = StoreFixtures.mariadb();

  @TempDir Path dir;

  @AfterEach
  void releaseChannels() {
    Dumps.releaseAll();
  }

  @Test
  void mysqlFilePositionErrors() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      assertRefused(
          store,
          Dumps.byPosition("binlog.000009", 4, 0, 7),
          Dumps.mysqlReplica(0),
          "Could not find first log file name in binary log index file");
      assertRefused(
          store,
          Dumps.byPosition("binlog.000002", 3, 0, 7),
          Dumps.mysqlReplica(0),
          "Client requested source to start replication from position < 4");
      assertRefused(
          store,
          Dumps.byPosition("binlog.000002", 99_999, 0, 7),
          Dumps.mysqlReplica(0),
          "Client requested source to start replication from position > file size");
    }
  }

  @Test
  void mysqlStartInsideAnEventFailsAfterTheFormatDescriptionAsMysqlsReaderFails() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          Dumps.config().build(),
          Dumps.byPosition("binlog.000002", 5, 0, 7),
          Dumps.mysqlReplica(0));
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());

      assertThat(packets).hasSize(3);
      assertThat(packets.get(0).event())
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, "binlog.000002", 5, true));
      assertThat(LittleEndian.u32(packets.get(1).event(), EventHeader.LOG_POS_OFFSET)).isZero();
      long fdeEnd = 4L + mysql.events("binlog.000002").get(0).length;
      // At offset 5, event_size is read from bytes 14..17: it comes out above 1 GiB.
      assertThat(LittleEndian.u32(mysql.bytes("binlog.000002"), 14)).isGreaterThan(1L << 30);
      assertError(
          packets.get(2),
          3,
          1236,
          "log event entry exceeded max_allowed_packet; Increase max_allowed_packet on"
              + " source; the first event 'binlog.000002' at 5, the last event read from './binlog.000002' at "
              + fdeEnd
              + ", the last byte read from './binlog.000002' at 24.");
      assertThat(channel.isOpen()).isFalse();
    }
  }

  @Test
  void mysqlPurgedGtidsAreRefusedWithTheMissingSet() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      StoreFixtures.settle(store);
      store.removeFilesBefore("binlog.000002");
      assertRefused(
          store,
          Dumps.byGtids(MysqlGtidSet.empty(), 2, 7),
          Dumps.mysqlReplica(0),
          "Cannot replicate because the source purged required binary logs. Replicate the missing transactions from"
              + " elsewhere, or provision a new replica from backup. Consider increasing the source's binary log"
              + " expiration period. The GTID set sent by the replica is '', and the missing transactions are"
              + " '11111111-2222-3333-4444-555555555555:1,\n3b1e7c52-0000-4000-8000-00000000f001:1-11'");
    }
  }

  @Test
  void mysqlReplicaAheadOfTheStoreWaitsThenIsRefusedAsDiverged() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      ServingConfig config =
          Dumps.config()
              .checkedSources(() -> Set.of(PRIMARY))
              .startWait(Duration.ofSeconds(2))
              .build();
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          config,
          Dumps.byGtids(MysqlGtidSet.parse(PRIMARY + ":1-100"), 2, 7),
          Dumps.mysqlReplica(0));
      assertThat(Wire.drain(channel).bytes()).as("waits for the store to catch up").isEmpty();
      for (int i = 0; i < 25 && channel.isOpen(); i++) {
        channel.advanceTimeBy(100, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
      }
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
      assertThat(packets).hasSize(1);
      // 515 characters: MySQL cuts every error text to MYSQL_ERRMSG_SIZE - 1 = 511, so does the
      // relay.
      assertError(packets.get(0), 1, 1236, MysqlDumpFlavor.DIVERGED.substring(0, 511));
      assertThat(MysqlDumpFlavor.DIVERGED)
          .startsWith(
              "Replica has more GTIDs than the source has, using the source's"
                  + " SERVER_UUID. This may indicate that the the last binary log file");
    }
  }

  @Test
  void mysqlReplicaWithGtidsOfAnUncheckedSourceIsServed() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          Dumps.config().checkedSources(() -> Set.of(PRIMARY)).build(),
          Dumps.byGtids(MysqlGtidSet.parse("aaaaaaaa-0000-4000-8000-000000000001:1-5"), 2, 7),
          Dumps.mysqlReplica(0));
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
      assertThat(packets.get(0).event())
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, "binlog.000001", 4, true));
      assertThat(channel.isOpen()).isTrue();
    }
  }

  @Test
  void mariadbFilePositionErrors() throws Exception {
    try (BinlogStore store = mariadb.store(dir)) {
      assertRefused(
          store,
          Dumps.byPosition("mariadb-bin.000009", 4, 2, 7),
          Dumps.mariadbReplica(0, null),
          "Could not find first log file name in binary log index file");
      assertRefused(
          store,
          Dumps.byPosition("mariadb-bin.000002", 99_999, 2, 7),
          Dumps.mariadbReplica(0, null),
          "Client requested master to start replication from impossible position; the first event"
              + " 'mariadb-bin.000002' at 99999, the last event read from 'mariadb-bin.000002' at 4, the last byte"
              + " read from 'mariadb-bin.000002' at 4.");
      assertRefused(
          store,
          Dumps.byPosition("mariadb-bin.000002", 2, 2, 7),
          Dumps.mariadbReplica(0, null),
          "Client requested master to start replication from impossible position; the first event"
              + " 'mariadb-bin.000002' at 2, the last event read from 'mariadb-bin.000002' at 4, the last byte"
              + " read from 'mariadb-bin.000002' at 4.");
      assertRefused(
          store,
          Dumps.byPosition("mariadb-bin.000002", 4, 2, 7),
          Dumps.variables("master_binlog_checksum", "CRC32"),
          "binlog-relay serves MariaDB binlogs to clients that set"
              + " @mariadb_slave_capability to 4 or more (MariaDB 10.0+ replicas, mariadb-binlog, binlog connectors); this"
              + " client set 0, and the relay does not rewrite GTID events for older replicas");
    }
  }

  @Test
  void mariadbStartInsideAnEvent() throws Exception {
    try (BinlogStore store = mariadb.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          Dumps.config().build(),
          Dumps.byPosition("mariadb-bin.000002", 5, 2, 7),
          Dumps.mariadbReplica(0, null));
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
      assertThat(packets).hasSize(3);
      // At offset 5, event_size is read from bytes 14..17: 0 here (MariaDB's FORMAT_DESCRIPTION is
      // 252 bytes).
      assertThat(LittleEndian.u32(mariadb.bytes("mariadb-bin.000002"), 14)).isZero();
      assertError(
          packets.get(2),
          3,
          1236,
          "bogus data in log event; the first event 'mariadb-bin.000002' at 5, the last event read from 'mariadb-bin.000002' at 5,"
              + " the last byte read from 'mariadb-bin.000002' at 24.");
    }
  }

  @Test
  void mariadbGtidErrorsAreMariadbs() throws Exception {
    try (BinlogStore store = mariadb.store(dir)) {
      assertRefused(
          store,
          mariadbGtid("0-1-500"),
          Dumps.mariadbReplica(0, "0-1-500"),
          "Error: connecting slave requested to start from GTID 0-1-500, which is not in the master's binlog");
      assertRefused(
          store,
          mariadbGtid("0-3-50"),
          Dumps.mariadbReplica(0, "0-3-50"),
          "Error: connecting slave requested to start from GTID 0-3-50, which is not in the master's binlog. Since"
              + " the master's binlog contains GTIDs with higher sequence numbers, it probably means that the slave"
              + " has diverged due to executing extra erroneous transactions");
      StoreFixtures.settle(store);
      store.removeFilesBefore("mariadb-bin.000002");
      assertRefused(
          store,
          mariadbGtid("0-1-5,2-1-1"),
          Dumps.mariadbReplica(0, "0-1-5,2-1-1"),
          "Could not find GTID state requested by slave in any binlog files. Probably the slave state is too old and"
              + " required binlog files have been purged.");
    }
  }

  /**
   * A MariaDB replica ahead of the store (a relay lagging its primary, such as one just replaced)
   * is not refused at once as MariaDB refuses it: the relay looks again until {@code startWait},
   * then refuses with MariaDB's text.
   */
  @Test
  void mariadbReplicaAheadOfTheStoreWaitsThenIsRefused() throws Exception {
    try (BinlogStore store = mariadb.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          Dumps.config().startWait(Duration.ofSeconds(2)).build(),
          mariadbGtid("0-1-500"),
          Dumps.mariadbReplica(0, "0-1-500"));
      assertThat(Wire.drain(channel).bytes()).as("waits for the store to catch up").isEmpty();
      for (int i = 0; i < 10; i++) {
        channel.advanceTimeBy(100, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
      }
      assertThat(Wire.drain(channel).bytes()).as("still waiting after 1 s").isEmpty();
      assertThat(channel.isOpen()).isTrue();
      for (int i = 0; i < 15 && channel.isOpen(); i++) {
        channel.advanceTimeBy(100, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
      }
      List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
      assertThat(packets).hasSize(1);
      assertError(
          packets.get(0),
          1,
          1236,
          "Error: connecting slave requested to start from GTID 0-1-500, which is not in the master's binlog");
      assertThat(channel.isOpen()).as("closed after the error").isFalse();
    }
  }

  /**
   * A replica by file and position asking for the file after the store's last one (a relay lagging
   * its primary, such as one just replaced, and a replica that already read that file elsewhere)
   * waits for it until {@code startWait}, then gets the server's "not in the index" error; an
   * earlier file the store lacks is refused at once.
   */
  @Test
  void aStartFileAfterTheStoresLastWaitsThenIsRefused() throws Exception {
    for (StoreFixtures fixtures : List.of(mysql, mariadb)) {
      Path storeDir = dir.resolve(fixtures == mysql ? "mysql" : "mariadb");
      try (BinlogStore store = fixtures.store(storeDir)) {
        String last = store.files().get(store.files().size() - 1).name();
        SessionVariables variables =
            fixtures == mysql ? Dumps.mysqlReplica(0) : Dumps.mariadbReplica(0, null);
        EmbeddedChannel channel = Dumps.channel();
        Dumps.start(
            channel,
            store,
            Dumps.config().startWait(Duration.ofSeconds(2)).build(),
            Dumps.byPosition(BinlogFileName.next(last), 4, 2, 7),
            variables);
        for (int i = 0; i < 10; i++) {
          channel.advanceTimeBy(100, TimeUnit.MILLISECONDS);
          channel.runScheduledPendingTasks();
        }
        assertThat(Wire.drain(channel).bytes())
            .as(BinlogFileName.next(last) + ": still waiting after 1 s")
            .isEmpty();
        assertThat(channel.isOpen()).isTrue();
        for (int i = 0; i < 15 && channel.isOpen(); i++) {
          channel.advanceTimeBy(100, TimeUnit.MILLISECONDS);
          channel.runScheduledPendingTasks();
        }
        List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
        assertThat(packets).hasSize(1);
        assertError(packets.get(0), 1, 1236, DumpFlavor.FILE_NOT_FOUND);
        assertThat(channel.isOpen()).as("closed after the error").isFalse();

        String before = BinlogFileName.base(last) + ".000000";
        EmbeddedChannel refused = Dumps.channel();
        Dumps.start(
            refused,
            store,
            Dumps.config().startWait(Duration.ofSeconds(2)).build(),
            Dumps.byPosition(before, 4, 2, 7),
            variables);
        List<Wire.Packet> atOnce = Wire.packets(Wire.drain(refused).bytes());
        assertThat(atOnce).as(before + ": refused at once").hasSize(1);
        assertError(atOnce.get(0), 1, 1236, DumpFlavor.FILE_NOT_FOUND);
      }
    }
  }

  private static DumpRequest mariadbGtid(String state) {
    return Dumps.mariadbGtid(MariadbGtidSet.parsePosition(state), 2, 7);
  }

  private static void assertRefused(
      BinlogStore store, DumpRequest request, SessionVariables variables, String message) {
    EmbeddedChannel channel = Dumps.channel();
    Dumps.start(
        channel, store, Dumps.config().startWait(Duration.ZERO).build(), request, variables);
    List<Wire.Packet> packets = Wire.packets(Wire.drain(channel).bytes());
    assertThat(packets).as("only the error").hasSize(1);
    assertError(packets.get(0), 1, 1236, message);
    assertThat(channel.isOpen()).as("closed after the error").isFalse();
  }
}
