package org.binlogrelay.protocol.event;

import static org.binlogrelay.protocol.event.EventBodies.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every typed view parses back what {@link EventBuilder} made from it. */
class EventRoundTripTest {
  static final UUID UUID_A = UUID.fromString("3e11fa47-71ca-11e1-9e33-c80aa9429562");
  static final UUID UUID_HIGH = UUID.fromString("ffffffff-ffff-ffff-8080-808080808080");

  private final EventBuilder mysql = EventBuilder.mysqlWithFde();
  private final EventBuilder maria = EventBuilder.mariadbWithFde();

  @Test
  void formatDescriptionRoundTrips() {
    FormatDescriptionEvent fde = mysql.format();
    assertEquals(EventBuilder.MYSQL_VERSION, fde.serverVersion());
    assertArrayEquals(EventBodies.MYSQL_POST_HEADERS, fde.postHeaderLengths());
    assertEquals(ChecksumAlgorithm.CRC32, fde.checksumAlgorithm());
    assertEquals(171, maria.format().eventTypeCount());
  }

  @Test
  void preChecksumServerHasNoAlgorithmByte() {
    EventBuilder old = EventBuilder.custom("5.5.62-log", new byte[27]);
    byte[] event = old.addFormatDescription(ChecksumAlgorithm.UNDEFINED);
    FormatDescriptionEvent fde = FormatDescriptionEvent.parse(event, 0, event.length);
    assertEquals(ChecksumAlgorithm.UNDEFINED, fde.checksumAlgorithm());
    assertEquals(27, fde.eventTypeCount());
    assertFalse(fde.eventsHaveChecksum());
  }

  @Test
  void versionProductFollowsMysql() {
    assertEquals((9 * 256 + 7) * 256 + 4, FormatDescriptionEvent.versionProduct("9.7.4-2"));
    assertEquals(
        (10 * 256 + 11) * 256 + 19, FormatDescriptionEvent.versionProduct("10.11.19-MariaDB-log"));
    assertEquals((5 * 256 + 6) * 256, FormatDescriptionEvent.versionProduct("5.6"));
    assertEquals(0, FormatDescriptionEvent.versionProduct("x9.7"));
    assertEquals(0, FormatDescriptionEvent.versionProduct("300.1.1"));
    assertTrue(FormatDescriptionEvent.isChecksumAware("5.6.1"));
    assertFalse(FormatDescriptionEvent.isChecksumAware("5.6.0"));
  }

  @Test
  void rotateAndStop() {
    RotateEvent rotate = new RotateEvent(123_456_789_012L, "binlog.000042");
    assertEquals(
        rotate,
        RotateEvent.parse(
            mysql.wrap(mysql.add(EventType.ROTATE, rotate.encodeBody())), mysql.format()));
    byte[] stop = mysql.timestamp(77).add(EventType.STOP, new byte[0]);
    assertEquals(new StopEvent(77), StopEvent.parse(mysql.wrap(stop)));
  }

  @Test
  void xid() {
    XidEvent xid = new XidEvent(-2);
    assertEquals(
        xid,
        XidEvent.parse(mysql.wrap(mysql.add(EventType.XID, xid.encodeBody())), mysql.format()));
  }

  @Test
  void queryWithDefaultAndLongerPostHeader() {
    QueryEvent q =
        new QueryEvent(0xffffffffL, 3, 1062, new byte[] {0, 1, 2, 3}, "shop", utf8("COMMIT "));
    QueryEvent back =
        QueryEvent.parse(
            mysql.wrap(mysql.add(EventType.QUERY, EventBodies.query(q, 13))), mysql.format());
    assertQuery(q, back);
    assertTrue(back.isCommit());

    byte[] table = EventBodies.MYSQL_POST_HEADERS.clone();
    table[EventType.QUERY.code() - 1] = 20;
    EventBuilder future = EventBuilder.custom("10.0.0", table);
    future.addFormatDescription(ChecksumAlgorithm.CRC32);
    QueryEvent longer =
        QueryEvent.parse(
            future.wrap(future.add(EventType.QUERY, EventBodies.query(q, 20))), future.format());
    assertQuery(q, longer);
  }

  private static void assertQuery(QueryEvent expected, QueryEvent actual) {
    assertEquals(expected.threadId(), actual.threadId());
    assertEquals(expected.executionTime(), actual.executionTime());
    assertEquals(expected.errorCode(), actual.errorCode());
    assertArrayEquals(expected.statusVariables(), actual.statusVariables());
    assertEquals(expected.database(), actual.database());
    assertArrayEquals(expected.queryBytes(), actual.queryBytes());
  }

  @Test
  void queryMarkers() {
    assertTrue(query("BEGIN").isBegin());
    assertTrue(query("  begin\n").isBegin());
    assertFalse(query("BEGIN WORK").isBegin());
    assertTrue(query("ROLLBACK").isRollback());
    assertFalse(query("ROLLBACK TO SAVEPOINT a").isRollback());
    assertTrue(query("XA START X'01',X'',1").isXaStart());
    assertTrue(query("xa   end X'01'").isXaEnd());
    assertTrue(query("XA PREPARE X'01'").isXaPrepare());
    assertTrue(query("XA COMMIT X'01' ONE PHASE").isXaCommit());
    assertTrue(query("XA ROLLBACK X'01'").isXaRollback());
    assertFalse(query("XA COMMITTED").isXaCommit());
    assertFalse(query("COMMIT").isXaCommit());
    assertFalse(query("").isBegin());
  }

  private static QueryEvent query(String sql) {
    return EventBodies.queryEvent("", sql);
  }

  @Test
  void queryDatabaseMustBeNulTerminated() {
    byte[] body = EventBodies.query(EventBodies.queryEvent("db", "BEGIN"), 13);
    body[13 + 5 + 2] = 'x';
    BinlogEvent e = mysql.wrap(mysql.add(EventType.QUERY, body));
    ProtocolException ex =
        assertThrows(ProtocolException.class, () -> QueryEvent.parse(e, mysql.format()));
    assertTrue(ex.getMessage().contains("QUERY"), ex.getMessage());
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 250, 251, 65_535, 65_536, 16_777_216, GtidEvent.MAX_GNO})
  void untaggedGtidRoundTrips(long gno) {
    GtidEvent g =
        new GtidEvent(
            EventType.GTID, 1, UUID_A, "", gno, gno - 1, gno, 1L << 54, 5, gno, 80036, 90704, 0);
    assertEquals(
        g,
        GtidEvent.parse(
            mysql.wrap(mysql.add(EventType.GTID, EventBodies.gtid(g))), mysql.format()));
    GtidEvent same =
        new GtidEvent(EventType.GTID, 0, UUID_HIGH, "", gno, 0, 1, 7, 7, 1, 90704, 90704, 99);
    assertEquals(
        same,
        GtidEvent.parse(
            mysql.wrap(mysql.add(EventType.GTID, EventBodies.gtid(same))), mysql.format()));
  }

  /**
   * Found by BinlogEventFuzzTest#binlogFile
   * (BinlogEventFuzzTestInputs/binlogFile/crash-6dab8fff...): a GTID_TAGGED event whose tag MySQL
   * would refuse parsed, and the transaction tracker then failed with IllegalArgumentException from
   * the GTID instead of a ProtocolException naming the event.
   */
  @Test
  void taggedGtidWithAnInvalidTagIsRefused() {
    for (String tag : List.of("my\u00e9tag", "1tag", "has space", "a-b")) {
      GtidEvent g =
          new GtidEvent(EventType.GTID_TAGGED, 1, UUID_A, tag, 5, 4, 5, 1, 1, 0, 90704, 90704, 0);
      BinlogEvent event = mysql.wrap(mysql.add(EventType.GTID_TAGGED, EventBodies.taggedGtid(g)));
      ProtocolException e =
          assertThrows(ProtocolException.class, () -> GtidEvent.parse(event, mysql.format()), tag);
      assertTrue(e.getMessage().contains("GTID_TAGGED"), e.getMessage());
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 63, 64, 8191, 8192, 1L << 40, GtidEvent.MAX_GNO})
  void taggedGtidRoundTrips(long gno) {
    GtidEvent g =
        new GtidEvent(
            EventType.GTID_TAGGED,
            1,
            UUID_HIGH,
            "tag_" + "x".repeat(28),
            gno,
            gno / 2,
            gno,
            -1L >>> 8,
            12,
            -1,
            0xffffffffL,
            1,
            -5);
    assertEquals(
        g,
        GtidEvent.parse(
            mysql.wrap(mysql.add(EventType.GTID_TAGGED, EventBodies.taggedGtid(g))),
            mysql.format()));
    GtidEvent plain = EventBodies.gtidEvent(EventType.GTID_TAGGED, UUID_A, "a", gno);
    assertEquals(
        plain,
        GtidEvent.parse(
            mysql.wrap(mysql.add(EventType.GTID_TAGGED, EventBodies.taggedGtid(plain))),
            mysql.format()));
  }

  @Test
  void taggedGtidSkipsUnknownTrailingFieldsAndRefusesUnknownRequiredOnes() {
    GtidEvent g = EventBodies.gtidEvent(EventType.GTID_TAGGED, UUID_A, "t", 9);
    byte[] message = EventBodies.taggedGtid(g);
    byte[] fields = Arrays.copyOfRange(message, 3, message.length);
    byte[] extended =
        new SerializedWriter()
            .raw(fields)
            .unsigned(12)
            .unsigned(777)
            .unsigned(20)
            .string("future")
            .toByteArray();
    assertEquals(
        g,
        GtidEvent.parse(
            mysql.wrap(
                mysql.add(EventType.GTID_TAGGED, EventBodies.serializedMessage(0, extended))),
            mysql.format()));
    BinlogEvent unknownRequired =
        mysql.wrap(mysql.add(EventType.GTID_TAGGED, EventBodies.serializedMessage(21, extended)));
    ProtocolException e =
        assertThrows(
            ProtocolException.class, () -> GtidEvent.parse(unknownRequired, mysql.format()));
    assertTrue(e.getMessage().contains("non-ignorable"), e.getMessage());
  }

  @Test
  void anonymousGtidAndOlderLayouts() {
    GtidEvent anon =
        new GtidEvent(
            EventType.ANONYMOUS_GTID, 1, new UUID(0, 0), "", 0, 3, 4, 9, 9, 100, 80400, 80400, 0);
    GtidEvent back =
        GtidEvent.parse(
            mysql.wrap(mysql.add(EventType.ANONYMOUS_GTID, EventBodies.gtid(anon))),
            mysql.format());
    assertEquals(anon, back);
    assertTrue(back.isAnonymous());
    assertThrows(IllegalStateException.class, back::gtid);

    byte[] full = EventBodies.gtid(EventBodies.gtidEvent(EventType.GTID, UUID_A, "", 5));
    // 5.6: flags, uuid, gno only.
    GtidEvent v56 =
        GtidEvent.parse(
            mysql.wrap(mysql.add(EventType.GTID, Arrays.copyOf(full, 25))), mysql.format());
    assertEquals(0, v56.sequenceNumber());
    assertEquals(0, v56.immediateServerVersion());
    // 8.0.1: timestamps but no length or versions.
    GtidEvent v801 =
        GtidEvent.parse(
            mysql.wrap(mysql.add(EventType.GTID, Arrays.copyOf(full, 42 + 14))), mysql.format());
    assertEquals(1_795_319_847_879_723L, v801.immediateCommitTimestamp());
    assertEquals(GtidEvent.UNDEFINED_SERVER_VERSION, v801.immediateServerVersion());
  }

  @Test
  void invalidGnoIsRefused() {
    GtidEvent zero = EventBodies.gtidEvent(EventType.GTID, UUID_A, "", 0);
    BinlogEvent e = mysql.wrap(mysql.add(EventType.GTID, EventBodies.gtid(zero)));
    assertThrows(ProtocolException.class, () -> GtidEvent.parse(e, mysql.format()));
    GtidEvent max = EventBodies.gtidEvent(EventType.GTID_TAGGED, UUID_A, "t", Long.MAX_VALUE);
    BinlogEvent t = mysql.wrap(mysql.add(EventType.GTID_TAGGED, EventBodies.taggedGtid(max)));
    assertThrows(ProtocolException.class, () -> GtidEvent.parse(t, mysql.format()));
  }

  @Test
  void previousGtids() {
    MysqlGtidSet set =
        MysqlGtidSet.parse(
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,3e11fa47-71ca-11e1-9e33-c80aa9429562:tx:3");
    PreviousGtidsEvent back =
        PreviousGtidsEvent.parse(
            mysql.wrap(mysql.add(EventType.PREVIOUS_GTIDS, set.encode())), mysql.format());
    assertEquals(set.toString(), back.gtids().toString());
    assertArrayEquals(set.encode(), back.encoded());
  }

  @Test
  void xaPrepare() {
    XaPrepareEvent xa = new XaPrepareEvent(true, -1, 64, 64, new byte[128]);
    XaPrepareEvent back =
        XaPrepareEvent.parse(
            mysql.wrap(mysql.add(EventType.XA_PREPARE, EventBodies.xaPrepare(xa))), mysql.format());
    assertEquals(xa.formatId(), back.formatId());
    assertArrayEquals(xa.data(), back.data());
    assertTrue(back.onePhase());
    XaPrepareEvent tooLong = new XaPrepareEvent(false, 1, 65, 0, new byte[65]);
    BinlogEvent e = mysql.wrap(mysql.add(EventType.XA_PREPARE, EventBodies.xaPrepare(tooLong)));
    assertThrows(ProtocolException.class, () -> XaPrepareEvent.parse(e, mysql.format()));
  }

  @Test
  void heartbeats() {
    byte[] v1 =
        mysql.assemble(
            EventType.HEARTBEAT.code(),
            EventHeader.LOG_EVENT_ARTIFICIAL_F,
            new HeartbeatEvent("binlog.000001", 0).encodeBody(),
            true);
    assertEquals("binlog.000001", HeartbeatEvent.parse(mysql.wrap(v1), mysql.format()).logFile());
    HeartbeatV2Event v2 = new HeartbeatV2Event("binlog.123456", 5_000_000_000L);
    assertEquals(
        v2,
        HeartbeatV2Event.parse(
            mysql.wrap(mysql.add(EventType.HEARTBEAT_V2, v2.encodeBody())), mysql.format()));
    // An unknown field is skipped; a missing end mark is tolerated.
    byte[] odd =
        new ByteWriter()
            .lenencInt(9)
            .lenencInt(3)
            .bytes(new byte[] {1, 2, 3})
            .lenencInt(1)
            .lenencInt(2)
            .string("f1")
            .toByteArray();
    assertEquals(
        new HeartbeatV2Event("f1", 0),
        HeartbeatV2Event.parse(mysql.wrap(mysql.add(EventType.HEARTBEAT_V2, odd)), mysql.format()));
  }

  @Test
  void transactionPayload() {
    byte[] inner = utf8("not really compressed");
    BinlogEvent e =
        mysql.wrap(
            mysql.add(
                EventType.TRANSACTION_PAYLOAD,
                EventBodies.transactionPayload(TransactionPayloadEvent.NONE, 0, inner)));
    TransactionPayloadEvent p = TransactionPayloadEvent.parse(e, mysql.format());
    assertEquals(TransactionPayloadEvent.NONE, p.compressionType());
    assertEquals(inner.length, p.payloadSize());
    assertArrayEquals(inner, p.payload(e));
    BinlogEvent zstd =
        mysql.wrap(
            mysql.add(
                EventType.TRANSACTION_PAYLOAD,
                EventBodies.transactionPayload(
                    TransactionPayloadEvent.ZSTD, 1L << 33, new byte[300])));
    assertEquals(1L << 33, TransactionPayloadEvent.parse(zstd, mysql.format()).uncompressedSize());
    byte[] badType =
        new ByteWriter()
            .lenencInt(2)
            .lenencInt(1)
            .lenencInt(7)
            .lenencInt(1)
            .lenencInt(1)
            .lenencInt(0)
            .lenencInt(0)
            .toByteArray();
    BinlogEvent bad = mysql.wrap(mysql.add(EventType.TRANSACTION_PAYLOAD, badType));
    assertThrows(ProtocolException.class, () -> TransactionPayloadEvent.parse(bad, mysql.format()));
    byte[] tooBig =
        new ByteWriter()
            .lenencInt(2)
            .lenencInt(1)
            .lenencInt(0)
            .lenencInt(1)
            .lenencInt(1)
            .lenencInt(99)
            .lenencInt(0)
            .bytes(new byte[98])
            .toByteArray();
    BinlogEvent big = mysql.wrap(mysql.add(EventType.TRANSACTION_PAYLOAD, tooBig));
    assertThrows(ProtocolException.class, () -> TransactionPayloadEvent.parse(big, mysql.format()));
  }

  @Test
  void mariadbGtidFlagCombinations() {
    byte[] xid = utf8("gtridbqual");
    List<MariadbGtidEvent> cases =
        List.of(
            new MariadbGtidEvent(1, 0, 1, 0x29, 0, 0, 0, 0, new byte[0], 0, 0, 0),
            new MariadbGtidEvent(
                -1,
                0xffffffffL,
                1,
                MariadbGtidEvent.FL_GROUP_COMMIT_ID | 4,
                12345,
                0,
                0,
                0,
                new byte[0],
                0,
                0,
                0),
            new MariadbGtidEvent(
                5, 2, 1, MariadbGtidEvent.FL_PREPARED_XA, 0, 7, 5, 5, xid, 0, 0, 0),
            new MariadbGtidEvent(
                6,
                2,
                1,
                MariadbGtidEvent.FL_COMPLETED_XA | MariadbGtidEvent.FL_GROUP_COMMIT_ID,
                9,
                7,
                5,
                5,
                xid,
                MariadbGtidEvent.FL_EXTRA_MULTI_ENGINE,
                2,
                0),
            new MariadbGtidEvent(
                7, 0, 1, 0x21, 0, 0, 0, 0, new byte[0], MariadbGtidEvent.FL_COMMIT_ALTER, 0, 3),
            new MariadbGtidEvent(
                8, 0, 1, 0x21, 0, 0, 0, 0, new byte[0], MariadbGtidEvent.FL_START_ALTER, 0, 0));
    for (MariadbGtidEvent g : cases) {
      MariadbGtidEvent back =
          MariadbGtidEvent.parse(
              maria.wrap(maria.add(EventType.MARIADB_GTID, EventBodies.mariadbGtid(g))),
              maria.format());
      assertEquals(g.seqNo(), back.seqNo());
      assertEquals(g.domainId(), back.domainId());
      assertEquals(g.flags(), back.flags());
      assertEquals(g.commitId(), back.commitId());
      assertEquals(g.xaFormatId(), back.xaFormatId());
      assertArrayEquals(g.xidData(), back.xidData());
      assertEquals(g.flagsExtra(), back.flagsExtra());
      assertEquals(g.extraEngines(), back.extraEngines());
      assertEquals(g.startAlterSeqNo(), back.startAlterSeqNo());
      assertEquals(new MariadbGtid(g.domainId(), 1, g.seqNo()), back.gtid());
    }
  }

  @Test
  void gtidListCheckpointAnnotate() {
    GtidListEvent list =
        new GtidListEvent(
            GtidListEvent.FLAG_IGN_GTIDS,
            List.of(
                new MariadbGtid(0, 1, 100),
                new MariadbGtid(1, 2, 5),
                new MariadbGtid(0xffffffffL, 0xffffffffL, -1)));
    assertEquals(
        list,
        GtidListEvent.parse(
            maria.wrap(maria.add(EventType.GTID_LIST, EventBodies.gtidList(list))),
            maria.format()));
    assertEquals(
        new BinlogCheckpointEvent("mariadb-bin.000007"),
        BinlogCheckpointEvent.parse(
            maria.wrap(
                maria.add(
                    EventType.BINLOG_CHECKPOINT,
                    EventBodies.binlogCheckpoint("mariadb-bin.000007"))),
            maria.format()));
    byte[] sql = utf8("insert into t values ('é')");
    assertArrayEquals(
        sql,
        AnnotateRowsEvent.parse(maria.wrap(maria.add(EventType.ANNOTATE_ROWS, sql)), maria.format())
            .queryBytes());
  }

  @Test
  void gtidListCountIsCheckedBeforeAllocating() {
    byte[] body = new ByteWriter().u32(GtidListEvent.COUNT_MASK).toByteArray();
    BinlogEvent e = maria.wrap(maria.add(EventType.GTID_LIST, body));
    ProtocolException ex =
        assertThrows(ProtocolException.class, () -> GtidListEvent.parse(e, maria.format()));
    assertTrue(ex.getMessage().contains("GTID_LIST"), ex.getMessage());
  }

  @Test
  void parserRefusesAnotherType() {
    BinlogEvent xid = mysql.wrap(mysql.add(EventType.XID, new XidEvent(1).encodeBody()));
    assertThrows(IllegalArgumentException.class, () -> QueryEvent.parse(xid, mysql.format()));
  }
}
