package org.binlogrelay.protocol.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.binlogrelay.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

class EventHeaderTest {

  @Test
  void parsesARealHeader() {
    EventHeader h = EventHeader.parse(RealEventBytes.MYSQL_GTID_TAGGED, 0);
    assertEquals(0x6b026827L, h.timestamp());
    assertEquals(42, h.typeCode());
    assertEquals(EventType.GTID_TAGGED, h.type());
    assertEquals(1, h.serverId());
    assertEquals(81, h.eventSize());
    assertEquals(1210, h.logPos());
    assertEquals(0, h.flags());
    assertArrayEquals(Arrays.copyOf(RealEventBytes.MYSQL_GTID_TAGGED, 19), h.encode());
  }

  @Test
  void unsignedFieldsRoundTripAtTheirMaximum() {
    EventHeader h =
        new EventHeader(0xffffffffL, 255, 0xffffffffL, 0xffffffffL, 0xffffffffL, 0xffff);
    byte[] buf = new byte[25];
    h.encodeTo(buf, 3);
    assertEquals(h, EventHeader.parse(buf, 3));
    assertEquals("type 255", h.typeName());
    assertTrue(h.hasFlag(EventHeader.LOG_EVENT_SKIP_REPLICATION_F));
  }

  @Test
  void rangeAndBoundsAreChecked() {
    assertThrows(IllegalArgumentException.class, () -> new EventHeader(-1, 0, 0, 0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new EventHeader(0, 256, 0, 0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new EventHeader(0, 0, 0, 1L << 32, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new EventHeader(0, 0, 0, 0, 0, 0x10000));
    ProtocolException e =
        assertThrows(ProtocolException.class, () -> EventHeader.parse(new byte[30], 12));
    assertTrue(e.getMessage().contains("offset 12"), e.getMessage());
  }

  @Test
  void everyTypeCodeMapsWithoutThrowing() {
    Set<EventType> seen = new HashSet<>();
    for (int code = -5; code < 300; code++) {
      EventType t = EventType.forCode(code);
      assertNotNull(t);
      if (t != EventType.UNRECOGNIZED) {
        assertEquals(code, t.code());
        assertTrue(seen.add(t), "two codes for " + t);
      }
    }
    assertEquals(EventType.values().length - 1, seen.size(), "every type reachable by its code");
    assertEquals(EventType.UNRECOGNIZED, EventType.forCode(43));
    assertEquals(EventType.UNRECOGNIZED, EventType.forCode(200));
    assertEquals(EventType.MARIADB_GTID, EventType.forCode(162));
    assertEquals(EventType.DELETE_ROWS_COMPRESSED, EventType.forCode(171));
    assertTrue(EventType.GTID_TAGGED.isMysqlGtid());
    assertTrue(EventType.ANNOTATE_ROWS.isMariadbOnly());
  }

  @Test
  void unknownEventTypesAreCarriedOpaquely() {
    EventBuilder b = EventBuilder.mysqlWithFde();
    b.add(99, EventHeader.LOG_EVENT_IGNORABLE_F, new byte[] {1, 2, 3});
    BinlogFileParser parser = new BinlogFileParser(b.file(), 1000);
    parser.next();
    BinlogEvent e = parser.next();
    assertEquals(EventType.UNRECOGNIZED, e.type());
    assertEquals(99, e.header().typeCode());
    assertEquals("type 99@127(26 bytes, log_pos 153, crc)", e.toString());
  }

  @Test
  void logPosFitsTheEndOrIsZeroInsideATransaction() {
    EventHeader positioned = new EventHeader(1, EventType.XID.code(), 1, 31, 1367, 0);
    assertTrue(positioned.positionFits(1367, false));
    assertFalse(positioned.positionFits(1336, true));
    assertTrue(
        new EventHeader(1, 19, 1, 31, 10, 0).positionFits((1L << 32) + 10, false), "modulo 2^32");

    EventHeader unpositioned = new EventHeader(1, EventType.TABLE_MAP.code(), 1, 60, 0, 0);
    assertTrue(unpositioned.unpositioned());
    assertTrue(unpositioned.positionFits(1100, true), "MariaDB 11.4+: inside a transaction");
    assertFalse(unpositioned.positionFits(1100, false), "outside one it is made up for the dump");

    EventHeader artificial = unpositioned.withFlags(EventHeader.LOG_EVENT_ARTIFICIAL_F);
    assertFalse(artificial.unpositioned());
    assertFalse(
        artificial.positionFits(1100, true), "an artificial event is never one of the file");
    assertEquals(
        artificial.positionFits(1100, true),
        EventHeader.positionFits(artificial.logPos(), artificial.flags(), 1100, true));
  }
}
