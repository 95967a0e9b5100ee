package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.server.serving.DumpStreamTest.assertError;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.downstream.sql.SessionVariables;
import org.binlogrelay.server.downstream.sql.UserValue;
import org.binlogrelay.storage.BinlogStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream that keeps up with the store: heartbeats while idle (once per period, naming where the
 * stream stands, none between a ROTATE and the next file), new events as soon as they are readable,
 * no reading while the replica's connection is not writable, a replica that stopped reading
 * dropped, and a new dump of the same replica replacing the old one.
 */
class LiveStreamTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private final StoreFixtures mysql = StoreFixtures.mysql();
  private final StoreFixtures mariadb = StoreFixtures.mariadb();

  @TempDir Path dir;

  @AfterEach
  void releaseChannels() {
    Dumps.releaseAll();
  }

  @Test
  void heartbeatsGoOutOncePerIdlePeriodNamingTheStreamsPosition() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      EmbeddedChannel v2 = Dumps.channel();
      Dumps.start(
          v2,
          store,
          Dumps.config().build(),
          Dumps.byPosition("binlog.000001", 4, DumpRequest.USE_HEARTBEAT_EVENT_V2, 7),
          Dumps.mysqlReplica(SECOND));
      EmbeddedChannel v1 = Dumps.channel();
      Dumps.start(
          v1,
          store,
          Dumps.config().build(),
          Dumps.byPosition("binlog.000003", 4, 0, 8),
          Dumps.mysqlReplica(SECOND));
      Wire.drain(v2);
      Wire.drain(v1);

      v2.advanceTimeBy(999, TimeUnit.MILLISECONDS);
      v2.runScheduledPendingTasks();
      assertThat(Wire.drain(v2).bytes()).as("nothing before a period passed").isEmpty();
      v2.advanceTimeBy(1, TimeUnit.MILLISECONDS);
      v2.runScheduledPendingTasks();
      List<Wire.Packet> beat = Wire.packets(Wire.drain(v2).bytes());
      assertThat(beat).hasSize(1);
      assertThat(beat.get(0).event()).isEqualTo(GtidDumpTest.heartbeatV2("binlog.000003", 206809));
      v2.advanceTimeBy(1, TimeUnit.SECONDS);
      v2.runScheduledPendingTasks();
      assertThat(Wire.packets(Wire.drain(v2).bytes())).as("one per period").hasSize(1);

      v1.advanceTimeBy(1, TimeUnit.SECONDS);
      v1.runScheduledPendingTasks();
      assertThat(Wire.packets(Wire.drain(v1).bytes()).get(0).event())
          .isEqualTo(heartbeatV1("binlog.000003", 206809));
    }
  }

  @Test
  void mariadbHeartbeatsAreVersionOne() throws Exception {
    try (BinlogStore store = mariadb.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      Dumps.start(
          channel,
          store,
          Dumps.config().build(),
          Dumps.byPosition("mariadb-bin.000003", 4, 2, 7),
          Dumps.mariadbReplica(SECOND, null));
      Wire.drain(channel);
      channel.advanceTimeBy(1, TimeUnit.SECONDS);
      channel.runScheduledPendingTasks();
      assertThat(Wire.packets(Wire.drain(channel).bytes()).get(0).event())
          .isEqualTo(heartbeatV1("mariadb-bin.000003", 206160));
    }
  }

  @Test
  void newEventsGoOutWhenReadableAndNoHeartbeatFollowsARotate() throws Exception {
    try (BinlogStore store = mysql.store(dir, 2)) {
      EmbeddedChannel channel = Dumps.channel();
      ReplicaStream session =
          Dumps.start(
              channel,
              store,
              Dumps.config().build(),
              Dumps.byPosition("binlog.000002", 4, DumpRequest.USE_HEARTBEAT_EVENT_V2, 7),
              Dumps.mysqlReplica(SECOND));
      List<Wire.Packet> first = Wire.packets(Wire.drain(channel).bytes());
      assertThat(first.get(first.size() - 1).eventType())
          .as("binlog.000002 ends with its ROTATE")
          .isEqualTo(EventType.ROTATE.code());
      assertThat(session.status().state()).isEqualTo(DumpStatus.State.CAUGHT_UP);

      channel.advanceTimeBy(3, TimeUnit.SECONDS);
      channel.runScheduledPendingTasks();
      assertThat(Wire.drain(channel).bytes())
          .as("the replica already names binlog.000003: no heartbeat")
          .isEmpty();

      mysql.append(store, "binlog.000003");
      channel.runPendingTasks();
      List<Wire.Packet> next = Wire.packets(Wire.drain(channel).bytes());
      assertThat(next.get(0).event())
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, "binlog.000003", 4, true));
      assertThat(next).hasSize(1 + mysql.events("binlog.000003").size());
      channel.advanceTimeBy(1, TimeUnit.SECONDS);
      channel.runScheduledPendingTasks();
      assertThat(Wire.packets(Wire.drain(channel).bytes()).get(0).event())
          .isEqualTo(GtidDumpTest.heartbeatV2("binlog.000003", 206809));
      assertThat(session.status().eventsSent())
          .isEqualTo(mysql.events("binlog.000002").size() + mysql.events("binlog.000003").size());
    }
  }

  @Test
  void readsOnlyWhileTheReplicasConnectionIsWritable() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      channel.unsafe().outboundBuffer().setUserDefinedWritability(5, false);
      channel.runPendingTasks();
      Dumps.start(
          channel,
          store,
          Dumps.config().build(),
          Dumps.byPosition("binlog.000001", 4, 0, 7),
          Dumps.mysqlReplica(0));
      channel.flush();
      assertThat(Wire.packets(Wire.drain(channel).bytes()))
          .as("only the ROTATE written before the first read")
          .hasSize(1);

      channel.unsafe().outboundBuffer().setUserDefinedWritability(5, true);
      channel.runPendingTasks();
      assertThat(Wire.packets(Wire.drain(channel).bytes()))
          .hasSize(mysql.files.stream().mapToInt(f -> mysql.events(f).size() + 1).sum() - 1);
    }
  }

  @Test
  void aReplicaThatStopsReadingIsDroppedAfterTheTimeout() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      ReplicaStream session =
          Dumps.start(
              channel,
              store,
              Dumps.config().stalledReplicaTimeout(Duration.ofSeconds(60)).build(),
              Dumps.byPosition("binlog.000001", 4, 0, 7),
              Dumps.mysqlReplica(0));
      Wire.drain(channel);
      channel.unsafe().outboundBuffer().setUserDefinedWritability(5, false);
      channel.runPendingTasks();
      assertThat(session.status().state()).isEqualTo(DumpStatus.State.BLOCKED);
      channel.advanceTimeBy(59, TimeUnit.SECONDS);
      channel.runScheduledPendingTasks();
      assertThat(channel.isOpen()).isTrue();
      channel.advanceTimeBy(1, TimeUnit.SECONDS);
      channel.runScheduledPendingTasks();
      assertThat(channel.isOpen()).as("dropped after 60 s without reading").isFalse();
      assertThat(session.status().state()).isEqualTo(DumpStatus.State.CLOSED);
    }
  }

  @Test
  void aNewDumpOfTheSameReplicaReplacesTheOldOne() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      DumpRegistry registry = new DumpRegistry();
      EmbeddedChannel old = Dumps.channel();
      Dumps.start(
          old,
          store,
          Dumps.config().build(),
          Dumps.byPosition("binlog.000001", 4, 0, 7),
          Dumps.mysqlReplica(0),
          registry);
      EmbeddedChannel withUuid = Dumps.channel();
      Dumps.start(
          withUuid,
          store,
          Dumps.config().build(),
          Dumps.byPosition("binlog.000003", 4, 0, 7),
          withUuid("aaaaaaaa-0000-4000-8000-000000000001"),
          registry);
      int sent = Wire.packets(Wire.drain(old).bytes()).size();
      Wire.drain(withUuid);
      old.runPendingTasks();
      assertThat(old.isOpen())
          .as("a replica with a UUID replaces only dumps with that UUID")
          .isTrue();
      assertThat(registry.sessions()).hasSize(2);

      EmbeddedChannel newer = Dumps.channel();
      Dumps.start(
          newer,
          store,
          Dumps.config().build(),
          Dumps.byPosition("binlog.000003", 4, 0, 7),
          Dumps.mysqlReplica(0),
          registry);
      old.runPendingTasks();
      List<Wire.Packet> ending = Wire.packets(Wire.drain(old).bytes());
      assertThat(ending).hasSize(1);
      assertError(
          ending.get(0),
          (Dumps.FIRST_SEQUENCE_ID + sent) & 0xff,
          1236,
          "A replica with the same"
              + " server_uuid/server_id as this replica has connected to the source; the first event 'binlog.000001' at"
              + " 4, the last event read from './binlog.000003' at 206809, the last byte read from './binlog.000003' at"
              + " 206809.");
      assertThat(old.isOpen()).isFalse();
      assertThat(newer.isOpen()).isTrue();

      EmbeddedChannel sameUuid = Dumps.channel();
      Dumps.start(
          sameUuid,
          store,
          Dumps.config().build(),
          Dumps.byPosition("binlog.000003", 4, 0, 9),
          withUuid("aaaaaaaa-0000-4000-8000-000000000001"),
          registry);
      withUuid.runPendingTasks();
      assertThat(withUuid.isOpen()).as("same UUID, other server_id: replaced").isFalse();
      assertThat(newer.isOpen()).isTrue();
      assertThat(registry.sessions()).hasSize(2);
    }
  }

  private static SessionVariables withUuid(String uuid) {
    SessionVariables vars = Dumps.mysqlReplica(0);
    vars.setUser("replica_uuid", new UserValue(uuid, UserValue.Kind.STRING));
    return vars;
  }

  @Test
  void mariadbReplacementIsErrorSlaveSameId() throws Exception {
    try (BinlogStore store = mariadb.store(dir)) {
      DumpRegistry registry = new DumpRegistry();
      EmbeddedChannel old = Dumps.channel();
      Dumps.start(
          old,
          store,
          Dumps.config().build(),
          Dumps.byPosition("mariadb-bin.000003", 4, 2, 7),
          Dumps.mariadbReplica(0, null),
          registry);
      int sent = Wire.packets(Wire.drain(old).bytes()).size();
      Dumps.start(
          Dumps.channel(),
          store,
          Dumps.config().build(),
          Dumps.byPosition("mariadb-bin.000003", 4, 2, 7),
          Dumps.mariadbReplica(0, null),
          registry);
      old.runPendingTasks();
      assertError(
          Wire.packets(Wire.drain(old).bytes()).get(0),
          (Dumps.FIRST_SEQUENCE_ID + sent) & 0xff,
          4052,
          "A slave with the same server_uuid/server_id as this slave has connected to the master; the first event"
              + " 'mariadb-bin.000003' at 4, the last event read from 'mariadb-bin.000003' at 206129, the last byte"
              + " read from 'mariadb-bin.000003' at 206160.");
    }
  }

  /**
   * HEARTBEAT laid out by hand: header (timestamp 0, type 27, the relay's server_id, log_pos),
   * name, CRC32.
   */
  static byte[] heartbeatV1(String file, long position) {
    byte[] name = file.getBytes(StandardCharsets.US_ASCII);
    int size = 19 + name.length + 4;
    byte[] e = new byte[size];
    e[4] = 27;
    LittleEndian.put32(e, 5, Dumps.RELAY_SERVER_ID);
    LittleEndian.put32(e, 9, size);
    LittleEndian.put32(e, 13, position);
    System.arraycopy(name, 0, e, 19, name.length);
    BinlogChecksum.patch(e, 0, size);
    return e;
  }
}
