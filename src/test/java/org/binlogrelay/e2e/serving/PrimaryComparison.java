package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.testing.WireClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test side: one dump request asked of the real primary and of the relay on fresh connections set
 * up the same way, and the answers compared with {@link DumpComparison}.
 */
final class PrimaryComparison {
  private static final int GTID_LIST = 163;
  private static final Logger LOG = LoggerFactory.getLogger(PrimaryComparison.class);

  private final DatabaseServer primary;
  private final ServingRelay relay;
  private final boolean tls;

  PrimaryComparison(DatabaseServer primary, ServingRelay relay, boolean tls) {
    this.primary = primary;
    this.relay = relay;
    this.tls = tls;
  }

  /** A dump that ends (EOF, ERR, or 5 s of silence): the whole answers must be the same. */
  void compare(String what, List<String> setup, byte[] request) {
    List<WireClient.Packet>[] answers = ask(setup, request, 1_000_000, Duration.ofSeconds(5));
    List<WireClient.Packet> fromRelay = answers[1];
    WireClient.Packet last = fromRelay.get(fromRelay.size() - 1);
    LOG.info(
        "compared with the primary: {}: {} packets, last {}",
        what,
        fromRelay.size(),
        last.isErr() ? last.err() : last.isEof() ? "EOF" : "event " + last.eventType());
    assertThat(DumpComparison.differences(answers[0], fromRelay)).as(what).isEmpty();
  }

  /**
   * A MariaDB GTID start, compared from the fake GTID_LIST that marks where the replica's position
   * is reached: both answers must have one, and everything from it on (the events the replica
   * applies, the EOF) is the same. What comes before it may differ: a MariaDB 11.4+ primary with
   * {@code binlog_gtid_index=ON} starts at the offset its GTID index gives (inside the file,
   * FORMAT_DESCRIPTION with log_pos 0), the relay at the file's start as 10.11 does
   * (docs/serving.md).
   */
  void compareFromFakeGtidList(String what, List<String> setup, byte[] request) {
    List<WireClient.Packet>[] answers = ask(setup, request, 1_000_000, Duration.ofSeconds(5));
    int fromServer = firstFakeGtidList(answers[0]);
    int fromRelay = firstFakeGtidList(answers[1]);
    assertThat(fromServer).as(what + ": the primary's fake GTID_LIST").isNotNegative();
    assertThat(fromRelay).as(what + ": the relay's fake GTID_LIST").isNotNegative();
    List<WireClient.Packet> server = answers[0].subList(fromServer, answers[0].size());
    List<WireClient.Packet> relay = answers[1].subList(fromRelay, answers[1].size());
    LOG.info(
        "compared with the primary from the fake GTID_LIST: {}: {} packets (server {} before it, relay {})",
        what,
        relay.size(),
        fromServer,
        fromRelay);
    assertThat(relay.size()).as(what + ": events after the fake GTID_LIST").isGreaterThan(1);
    assertThat(DumpComparison.differences(renumbered(server), renumbered(relay)))
        .as(what)
        .isEmpty();
  }

  private static int firstFakeGtidList(List<WireClient.Packet> packets) {
    for (int i = 0; i < packets.size(); i++) {
      WireClient.Packet p = packets.get(i);
      if (p.isEvent()
          && p.eventType() == GTID_LIST
          && (LittleEndian.u16(p.event(), EventHeader.FLAGS_OFFSET)
                  & EventHeader.LOG_EVENT_ARTIFICIAL_F)
              != 0) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The packets with sequence ids counted from 0 again, so that two answers cut at different places
   * compare.
   */
  private static List<WireClient.Packet> renumbered(List<WireClient.Packet> packets) {
    List<WireClient.Packet> out = new ArrayList<>();
    for (int i = 0; i < packets.size(); i++) {
      out.add(new WireClient.Packet(i & 0xff, packets.get(i).payload()));
    }
    return out;
  }

  /**
   * A blocking dump: both answers are read until 2 s of silence or 40 packets, then cut to the
   * shorter one (idle heartbeats come on each side's own clock); at least {@code heartbeats}
   * heartbeats must be in it.
   */
  void compareBlocking(
      String what, List<String> setup, byte[] request, int heartbeatType, int heartbeats) {
    List<WireClient.Packet>[] answers = ask(setup, request, 40, Duration.ofSeconds(2));
    int n = Math.min(answers[0].size(), answers[1].size());
    long seen =
        answers[1].subList(0, n).stream()
            .filter(p -> p.isEvent() && p.eventType() == heartbeatType)
            .count();
    LOG.info("compared with the primary: {}: {} packets, {} heartbeats", what, n, seen);
    assertThat(seen).as("heartbeats while idle").isGreaterThanOrEqualTo(heartbeats);
    assertThat(DumpComparison.differences(answers[0].subList(0, n), answers[1].subList(0, n)))
        .as(what)
        .isEmpty();
  }

  /**
   * A non-blocking dump read to its EOF, then COM_PING on the same connection: what the primary
   * does after the EOF (answers, or closes the connection), the relay does. Returns that outcome.
   */
  String compareAfterEof(String what, List<String> setup, byte[] request) {
    String[] outcomes = new String[2];
    try (DumpClient p =
            DumpClient.connect(primary.address(), primary.replicationCredentials(), tls);
        DumpClient r = DumpClient.connect(relay.address(), Credentials.REPLICATION, tls)) {
      p.execute(setup.toArray(String[]::new));
      r.execute(setup.toArray(String[]::new));
      outcomes[0] = pingAfterEof(p, request);
      outcomes[1] = pingAfterEof(r, request);
    }
    LOG.info(
        "compared with the primary: {}: COM_PING after the EOF: primary {}, relay {}",
        what,
        outcomes[0],
        outcomes[1]);
    assertThat(outcomes[1]).as(what).isEqualTo(outcomes[0]);
    return outcomes[1];
  }

  private static String pingAfterEof(DumpClient client, byte[] request) {
    List<WireClient.Packet> answer = client.dump(request, 1_000_000, Duration.ofSeconds(5));
    assertThat(answer).isNotEmpty();
    assertThat(answer.get(answer.size() - 1).isEof()).as("the dump ends with EOF").isTrue();
    try {
      WireClient.Packet reply = client.ping();
      return reply.isErr()
          ? "ERR " + reply.err().code()
          : reply.payload()[0] == 0
              ? "OK"
              : "packet 0x" + Integer.toHexString(reply.payload()[0] & 0xff);
    } catch (SocketTimeoutException e) {
      return "no answer within 5 s";
    } catch (IOException e) {
      return "connection closed";
    }
  }

  // A generic array cannot be created; both elements are List<Packet>.
  @SuppressWarnings({"unchecked", "rawtypes"})
  private List<WireClient.Packet>[] ask(
      List<String> setup, byte[] request, int maxPackets, Duration idle) {
    try (DumpClient p =
            DumpClient.connect(primary.address(), primary.replicationCredentials(), tls);
        DumpClient r = DumpClient.connect(relay.address(), Credentials.REPLICATION, tls)) {
      p.execute(setup.toArray(String[]::new));
      r.execute(setup.toArray(String[]::new));
      return new List[] {p.dump(request, maxPackets, idle), r.dump(request, maxPackets, idle)};
    }
  }

  /**
   * Closed files identical; the last one identical except for the in-use flag the primary still has
   * set.
   */
  static void assertSameFiles(Path primaryDir, Path copies, List<String> names) throws Exception {
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      byte[] original = Files.readAllBytes(primaryDir.resolve(name));
      byte[] copy = Files.readAllBytes(copies.resolve(name));
      if (i == names.size() - 1) {
        original[21] &= ~1;
      }
      assertThat(copy.length).as(name + " size").isEqualTo(original.length);
      assertThat(Arrays.mismatch(copy, original)).as(name + " first differing byte").isEqualTo(-1);
    }
    LOG.info("FIGURE {} files copied byte-identical: {}", names.size(), names);
  }
}
