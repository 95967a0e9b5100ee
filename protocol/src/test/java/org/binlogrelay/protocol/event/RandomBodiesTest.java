package org.binlogrelay.protocol.event;

import static org.binlogrelay.protocol.testing.RandomCases.check;

import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

/**
 * Random bodies for every typed view: they parse or throw {@link ProtocolException}, nothing else.
 * The coverage-guided counterpart is {@link BinlogEventFuzzTest}. (Runs on the project's own seeded
 * {@code RandomCases}; the project does not use jqwik.)
 */
class RandomBodiesTest {
  private static final FormatDescriptionEvent MYSQL =
      FormatDescriptionEvent.parse(RealEventBytes.MYSQL_FDE, 0, RealEventBytes.MYSQL_FDE.length);
  private static final FormatDescriptionEvent MARIADB =
      FormatDescriptionEvent.parse(
          RealEventBytes.MARIADB_FDE, 0, RealEventBytes.MARIADB_FDE.length);
  private static final EventType[] PARSED = {
    EventType.FORMAT_DESCRIPTION,
    EventType.ROTATE,
    EventType.STOP,
    EventType.QUERY,
    EventType.XID,
    EventType.GTID,
    EventType.ANONYMOUS_GTID,
    EventType.GTID_TAGGED,
    EventType.PREVIOUS_GTIDS,
    EventType.XA_PREPARE,
    EventType.HEARTBEAT,
    EventType.HEARTBEAT_V2,
    EventType.TRANSACTION_PAYLOAD,
    EventType.MARIADB_GTID,
    EventType.GTID_LIST,
    EventType.BINLOG_CHECKPOINT,
    EventType.ANNOTATE_ROWS
  };

  @Test
  void randomBodies() {
    check(
        "randomBodies",
        3000,
        r -> {
          byte[] body = new byte[r.nextInt(301)];
          r.nextBytes(body);
          parseQuietly(PARSED[r.nextInt(PARSED.length)], body);
        });
  }

  /** Real bodies with a few bytes overwritten: closer to the formats than pure noise. */
  @Test
  void mutatedRealBodies() {
    check(
        "mutatedRealBodies",
        3000,
        r -> {
          byte[] event = SampleEvents.all().get(r.nextInt(SampleEvents.all().size())).event();
          byte[] body =
              Arrays.copyOfRange(event, EventHeader.SIZE, event.length - BinlogChecksum.SIZE);
          int edits = 1 + r.nextInt(3);
          for (int i = 0; i < edits && body.length > 0; i++) {
            body[r.nextInt(body.length)] = (byte) r.nextInt(256);
          }
          parseQuietly(EventType.forCode(event[EventHeader.TYPE_OFFSET] & 0xff), body);
        });
  }

  private static void parseQuietly(EventType type, byte[] body) {
    EventHeader header = new EventHeader(1, type.code(), 1, 0, 0, 0);
    BinlogEvent event = BinlogEvent.assemble(header, body, true);
    try {
      TypedViews.parse(event, type.isMariadbOnly() ? MARIADB : MYSQL);
    } catch (ProtocolException expected) {
      // refused with a message: fine
    }
  }
}
