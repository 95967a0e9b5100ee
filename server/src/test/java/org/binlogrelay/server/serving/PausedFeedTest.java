package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin API's control of one feed: a paused stream sends nothing (no event, no heartbeat),
 * resumes exactly where it stopped, counts transactions and stalls, and tells the observer what it
 * handed to the socket.
 */
class PausedFeedTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final int EVENT_TYPE = 4;
  private final StoreFixtures mysql = StoreFixtures.mysql();

  @TempDir Path dir;

  @AfterEach
  void releaseChannels() {
    Dumps.releaseAll();
  }

  @Test
  void aPausedFeedSendsNothingAndResumesWhereItStopped() throws Exception {
    List<Position[]> observed = new ArrayList<>();
    try (BinlogStore store = mysql.store(dir, 2)) {
      EmbeddedChannel channel = Dumps.channel();
      ServingConfig config =
          Dumps.config().observer((from, to) -> observed.add(new Position[] {from, to})).build();
      ReplicaStream session =
          Dumps.start(
              channel,
              store,
              config,
              Dumps.byPosition("binlog.000002", 4, DumpRequest.USE_HEARTBEAT_EVENT_V2, 7),
              Dumps.mysqlReplica(SECOND));
      Wire.drain(channel);
      DumpStatus before = session.status();
      assertThat(before.state()).isEqualTo(DumpStatus.State.CAUGHT_UP);
      assertThat(before.sentFile()).isEqualTo("binlog.000002");
      assertThat(before.transactionsSent()).isEqualTo(gtidEvents("binlog.000002"));
      assertThat(observed).isNotEmpty();
      assertThat(observed.get(observed.size() - 1)[1])
          .isEqualTo(new Position(before.sentFile(), before.sentPosition()));

      session.pause();
      channel.runPendingTasks();
      assertThat(session.status().state()).isEqualTo(DumpStatus.State.PAUSED);
      mysql.append(store, "binlog.000003");
      channel.runPendingTasks();
      channel.advanceTimeBy(5, TimeUnit.SECONDS);
      channel.runScheduledPendingTasks();
      assertThat(Wire.drain(channel).bytes())
          .as("no event and no heartbeat while paused")
          .isEmpty();
      assertThat(session.status().sentPosition()).isEqualTo(before.sentPosition());

      session.resume();
      channel.runPendingTasks();
      List<Wire.Packet> next = Wire.packets(Wire.drain(channel).bytes());
      assertThat(next.get(0).event())
          .isEqualTo(ArtificialEvents.rotate(Dumps.RELAY_SERVER_ID, "binlog.000003", 4, true));
      assertThat(next).hasSize(1 + mysql.events("binlog.000003").size());
      DumpStatus after = session.status();
      assertThat(after.state()).isEqualTo(DumpStatus.State.CAUGHT_UP);
      assertThat(after.paused()).isFalse();
      assertThat(after.transactionsSent())
          .isEqualTo(gtidEvents("binlog.000002") + gtidEvents("binlog.000003"));
      assertThat(observed.get(observed.size() - 1)[1])
          .isEqualTo(new Position("binlog.000003", after.sentPosition()));
      assertThat(observed.get(0)[0]).isNull();
      for (int i = 1; i < observed.size(); i++) {
        assertThat(observed.get(i)[0])
            .as("each call starts where the last ended")
            .isEqualTo(observed.get(i - 1)[1]);
        assertThat(observed.get(i)[1]).isGreaterThan(observed.get(i)[0]);
      }
    }
  }

  @Test
  void stallsCountTheEpisodesTheReplicaStoppedReading() throws Exception {
    try (BinlogStore store = mysql.store(dir)) {
      EmbeddedChannel channel = Dumps.channel();
      ReplicaStream session =
          Dumps.start(
              channel,
              store,
              Dumps.config().build(),
              Dumps.byPosition("binlog.000001", 4, 0, 7),
              Dumps.mysqlReplica(0));
      Wire.drain(channel);
      for (int i = 0; i < 2; i++) {
        channel.unsafe().outboundBuffer().setUserDefinedWritability(5, false);
        channel.runPendingTasks();
        channel.unsafe().outboundBuffer().setUserDefinedWritability(5, true);
        channel.runPendingTasks();
      }
      assertThat(session.status().stalls()).isEqualTo(2);
    }
  }

  private long gtidEvents(String file) {
    return mysql.events(file).stream()
        .filter(
            e ->
                e[EVENT_TYPE] == EventType.GTID.code()
                    || e[EVENT_TYPE] == EventType.GTID_TAGGED.code()
                    || e[EVENT_TYPE] == EventType.ANONYMOUS_GTID.code())
        .count();
  }
}
