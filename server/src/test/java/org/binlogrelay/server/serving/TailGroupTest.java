package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared tail on its own, with members that record what they get: every member receives exactly
 * the stored events after the group's start, framed for its own sequence ids (one framing per
 * distinct id), a member that is not ready leaves at the batch it would have missed, and the end of
 * the file dissolves the group after its ROTATE went out.
 */
class TailGroupTest {
  private final StoreFixtures mysql = StoreFixtures.mysql();

  @TempDir Path dir;

  @AfterEach
  void releaseChannels() {
    Dumps.releaseAll();
  }

  @Test
  void membersGetTheStoredEventsFramedForTheirOwnSequence() throws Exception {
    try (BinlogStore store = mysql.store(dir, 2)) {
      String file = "binlog.000003";
      List<byte[]> events = mysql.events(file);
      int head = 12;
      appendEvents(store, file, 0, head);
      Position start =
          eventually(
              Duration.ofSeconds(30),
              "readable",
              store::readableEnd,
              p -> p != null && p.file().equals(file));
      int first = indexAt(file, start.offset());

      EmbeddedChannel channel = Dumps.channel();
      Map<String, TailGroup> groups = new HashMap<>();
      TailGroup group =
          TailGroup.open(
              channel.eventLoop(),
              store,
              Dumps.config().build(),
              start,
              ByteBufAllocator.DEFAULT,
              groups,
              new TailGroups.Stats());
      Recorder a = new Recorder(5);
      Recorder b = new Recorder(5);
      Recorder c = new Recorder(200);
      Recorder stalled = new Recorder(9);
      assertThat(group.join(a, start)).isTrue();
      assertThat(group.join(b, start)).isTrue();
      assertThat(group.join(c, start)).isTrue();
      assertThat(group.join(stalled, start)).isTrue();
      assertThat(group.join(new Recorder(1), new Position(file, 4))).as("elsewhere").isFalse();
      stalled.ready = false;

      appendEvents(store, file, head, events.size());
      eventually(
          Duration.ofSeconds(30),
          () -> {
            channel.runPendingTasks();
            assertThat(a.events()).hasSize(events.size() - first);
          });
      List<byte[]> expected = events.subList(first, events.size());
      for (Recorder r : List.of(a, b, c)) {
        assertThat(r.events()).containsExactlyElementsOf(expected);
        assertThat(r.sequencesConsecutive()).isTrue();
      }
      assertThat(a.bytes.toByteArray()).isEqualTo(b.bytes.toByteArray());
      assertThat(stalled.events()).isEmpty();
      assertThat(stalled.leftAt).as("left where it stopped getting batches").isEqualTo(start);
      assertThat(group.size()).isEqualTo(3);
      assertThat(group.deliveries()).isEqualTo(3 * group.batches());
    }
  }

  @Test
  void theEndOfTheFileDissolvesTheGroupAfterItsRotate() throws Exception {
    try (BinlogStore store = mysql.store(dir, 1)) {
      String file = "binlog.000002";
      List<byte[]> events = mysql.events(file);
      appendEvents(store, file, 0, events.size() - 1);
      Position start =
          eventually(
              Duration.ofSeconds(30),
              "readable",
              store::readableEnd,
              p -> p != null && p.file().equals(file));
      int first = indexAt(file, start.offset());
      EmbeddedChannel channel = Dumps.channel();
      Map<String, TailGroup> groups = new HashMap<>();
      TailGroup group =
          TailGroup.open(
              channel.eventLoop(),
              store,
              Dumps.config().build(),
              start,
              ByteBufAllocator.DEFAULT,
              groups,
              new TailGroups.Stats());
      Recorder a = new Recorder(3);
      assertThat(group.join(a, start)).isTrue();
      assertThat(groups).containsEntry(file, group);

      appendEvents(store, file, events.size() - 1, events.size()); // its ROTATE
      mysql.append(store, "binlog.000003"); // the primary rotated
      eventually(
          Duration.ofSeconds(30),
          () -> {
            channel.runPendingTasks();
            assertThat(a.leftAt).isNotNull();
          });
      assertThat(a.events()).containsExactlyElementsOf(events.subList(first, events.size()));
      assertThat(a.events().get(a.events().size() - 1)[EventHeader.TYPE_OFFSET])
          .isEqualTo((byte) EventType.ROTATE.code());
      assertThat(a.leftAt).isEqualTo(new Position(file, mysql.bytes(file).length));
      assertThat(group.closed()).isTrue();
      assertThat(groups).isEmpty();
    }
  }

  @Test
  void aCaughtUpStreamIsServedByItsLoopsGroupAndLeavesItWhenPaused() throws Exception {
    try (BinlogStore store = mysql.store(dir, 2)) {
      String file = "binlog.000003";
      List<byte[]> events = mysql.events(file);
      appendEvents(store, file, 0, 6);
      eventually(
          Duration.ofSeconds(30),
          "readable",
          store::readableEnd,
          p -> p != null && p.file().equals(file));
      DumpRegistry registry = new DumpRegistry();
      EmbeddedChannel channel = Dumps.channel();
      ReplicaStream stream =
          Dumps.start(
              channel,
              store,
              Dumps.config().build(),
              Dumps.byPosition(file, 4, 0, 7),
              Dumps.mysqlReplica(0),
              registry);
      List<Wire.Packet> received = new ArrayList<>(Wire.packets(Wire.drain(channel).bytes()));
      assertThat(stream.status().state()).isEqualTo(DumpStatus.State.CAUGHT_UP);
      assertThat(registry.tails().groups(channel.eventLoop())).containsKey(file);

      int half = (6 + events.size()) / 2;
      appendEvents(store, file, 6, half);
      eventually(
          Duration.ofSeconds(30),
          () -> {
            channel.runPendingTasks();
            assertThat(registry.tails().stats().deliveries()).isPositive();
          });
      stream.pause();
      channel.runPendingTasks();
      assertThat(registry.tails().groups(channel.eventLoop())).as("its last member left").isEmpty();
      stream.resume();
      appendEvents(store, file, half, events.size());
      eventually(
          Duration.ofSeconds(30),
          () -> {
            channel.runPendingTasks();
            received.addAll(Wire.packets(Wire.drain(channel).bytes()));
            assertThat(received).hasSize(1 + events.size());
          });
      for (int i = 0; i < received.size(); i++) {
        assertThat(received.get(i).sequenceId()).isEqualTo((Dumps.FIRST_SEQUENCE_ID + i) & 0xff);
      }
      List<byte[]> got = new ArrayList<>();
      for (Wire.Packet p : received.subList(2, received.size())) {
        got.add(p.event());
      }
      assertThat(got).containsExactlyElementsOf(events.subList(1, events.size()));
      assertThat(stream.status().eventsSent()).isEqualTo(events.size());
    }
  }

  private void appendEvents(BinlogStore store, String file, int from, int to) throws Exception {
    if (from == 0) {
      store.append(StoreFixtures.rotate(file));
    }
    List<byte[]> events = mysql.events(file);
    for (byte[] event : events.subList(from == 0 ? 0 : from, to)) {
      byte[] copy = event.clone();
      if ((copy[EventHeader.TYPE_OFFSET] & 0xff) == EventType.FORMAT_DESCRIPTION.code()) {
        copy[EventHeader.FLAGS_OFFSET] &= ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
      }
      store.append(BinlogEvent.wrap(copy, true));
    }
  }

  private int indexAt(String file, long offset) {
    List<Long> starts = mysql.eventStarts(file);
    int i = starts.indexOf(offset);
    return i < 0 ? starts.size() : i;
  }

  /** A member that records the frames it is given. */
  private static final class Recorder implements TailGroup.Member {
    final PacketSequence sequence;
    final int firstSequence;
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    boolean ready = true;
    Position leftAt;

    Recorder(int first) {
      this.sequence = new PacketSequence(first);
      this.firstSequence = first;
    }

    @Override
    public int nextSequence() {
      return sequence.next();
    }

    @Override
    public boolean ready() {
      return ready;
    }

    @Override
    public void deliver(ByteBuf framed, TailGroup.Run run) {
      try {
        byte[] b = new byte[framed.readableBytes()];
        framed.readBytes(b);
        bytes.writeBytes(b);
        sequence.advance(run.frames());
      } finally {
        framed.release();
      }
    }

    @Override
    public void left(Position at, Throwable waitFailure) {
      leftAt = at;
    }

    List<byte[]> events() {
      List<byte[]> out = new ArrayList<>();
      byte[] b = bytes.toByteArray();
      int at = 0;
      while (at < b.length) {
        int length = (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16;
        assertThat(b[at + 4]).as("OK marker").isZero();
        out.add(Arrays.copyOfRange(b, at + 5, at + 4 + length));
        at += 4 + length;
      }
      return out;
    }

    boolean sequencesConsecutive() {
      byte[] b = bytes.toByteArray();
      int at = 0;
      int expected = firstSequence;
      while (at < b.length) {
        int length = (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16;
        if ((b[at + 3] & 0xff) != expected) {
          return false;
        }
        expected = (expected + 1) & 0xff;
        at += 4 + length;
      }
      return true;
    }
  }
}
