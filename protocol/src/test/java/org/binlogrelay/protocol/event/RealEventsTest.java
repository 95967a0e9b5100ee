package org.binlogrelay.protocol.event;

import static org.binlogrelay.protocol.event.RealEventBytes.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.junit.jupiter.api.Test;

/** The parsers against events captured from MySQL 9.7.4 and MariaDB 10.11.19. */
class RealEventsTest {
  private static final UUID SOURCE = UUID.fromString("c4c2fd67-e628-11f1-a520-02fc00000001");
  private static final FormatDescriptionEvent MYSQL =
      FormatDescriptionEvent.parse(MYSQL_FDE, 0, MYSQL_FDE.length);
  private static final FormatDescriptionEvent MARIADB =
      FormatDescriptionEvent.parse(MARIADB_FDE, 0, MARIADB_FDE.length);

  private static BinlogEvent crc(byte[] event) {
    BinlogEvent e = BinlogEvent.wrap(event, true);
    assertTrue(e.checksumMatches(), "CRC32 of " + e);
    return e;
  }

  @Test
  void mysqlFormatDescription() {
    assertEquals(4, MYSQL.binlogVersion());
    assertEquals("9.7.4-2", MYSQL.serverVersion());
    assertEquals(19, MYSQL.commonHeaderLength());
    assertEquals(42, MYSQL.eventTypeCount());
    assertEquals(ChecksumAlgorithm.CRC32, MYSQL.checksumAlgorithm());
    assertEquals(0x6b02681cL, MYSQL.createTimestamp(), "written at startup");
    assertEquals(13, MYSQL.postHeaderLength(EventType.QUERY, -1));
    assertEquals(42, MYSQL.postHeaderLength(EventType.GTID, -1));
    assertEquals(0, MYSQL.postHeaderLength(EventType.GTID_TAGGED, -1));
    assertEquals(
        40,
        MYSQL.postHeaderLength(EventType.TRANSACTION_PAYLOAD, -1),
        "MySQL's table has 40, by mistake");
    assertEquals(-1, MYSQL.postHeaderLength(EventType.MARIADB_GTID, -1));
    assertFalse(MYSQL.isMariadb());
    crc(MYSQL_FDE);
  }

  @Test
  void formatDescriptionChecksumIgnoresTheInUseFlag() {
    BinlogEvent inUse = crc(MYSQL_FDE_IN_USE);
    assertTrue(inUse.header().hasFlag(EventHeader.LOG_EVENT_BINLOG_IN_USE_F));
    // The dump thread sends the same event with the flag cleared and the same checksum.
    assertEquals(inUse.storedChecksum(), crc(MYSQL_DUMP_FDE).storedChecksum());
    assertTrue(crc(MARIADB_FDE_IN_USE).header().hasFlag(EventHeader.LOG_EVENT_BINLOG_IN_USE_F));
  }

  @Test
  void formatDescriptionWithChecksumOff() {
    FormatDescriptionEvent off =
        FormatDescriptionEvent.parse(MYSQL_FDE_CHECKSUM_OFF, 0, MYSQL_FDE_CHECKSUM_OFF.length);
    assertEquals(ChecksumAlgorithm.OFF, off.checksumAlgorithm());
    assertEquals(42, off.eventTypeCount(), "the 4 bytes of room are not post-header lengths");
    assertFalse(off.eventsHaveChecksum());
    assertEquals(33, XidEvent.parse(BinlogEvent.wrap(MYSQL_XID_NO_CHECKSUM, false), off).xid());
  }

  @Test
  void mariadbFormatDescription() {
    assertEquals("10.11.19-MariaDB-0+deb12u1-log", MARIADB.serverVersion());
    assertTrue(MARIADB.isMariadb());
    assertEquals(171, MARIADB.eventTypeCount());
    assertEquals(19, MARIADB.postHeaderLength(EventType.MARIADB_GTID, -1));
    assertEquals(4, MARIADB.postHeaderLength(EventType.GTID_LIST, -1));
    assertEquals(4, MARIADB.postHeaderLength(EventType.BINLOG_CHECKPOINT, -1));
    crc(MARIADB_FDE);
  }

  @Test
  void mysqlGtids() {
    GtidEvent ddl = GtidEvent.parse(crc(MYSQL_GTID_DDL), MYSQL);
    assertEquals(EventType.GTID, ddl.type());
    assertEquals(SOURCE, ddl.sourceId());
    assertEquals(1, ddl.gno());
    assertTrue(ddl.mayHaveStatementChanges());
    assertEquals(0, ddl.lastCommitted());
    assertEquals(1, ddl.sequenceNumber());
    assertEquals(1795319847872269L, ddl.immediateCommitTimestamp());
    assertEquals(ddl.immediateCommitTimestamp(), ddl.originalCommitTimestamp());
    assertEquals(179, ddl.transactionLength());
    assertEquals(90704, ddl.immediateServerVersion());
    assertEquals(90704, ddl.originalServerVersion());
    assertEquals(0, ddl.commitGroupTicket());
    assertEquals("c4c2fd67-e628-11f1-a520-02fc00000001:1", ddl.gtid().toString());

    GtidEvent row = GtidEvent.parse(crc(MYSQL_GTID), MYSQL);
    assertEquals(3, row.gno());
    assertFalse(row.mayHaveStatementChanges());
    assertEquals(2, row.lastCommitted());
    assertEquals(3, row.sequenceNumber());
    assertEquals(285, row.transactionLength(), "a 3-byte packed integer");
  }

  @Test
  void mysqlTaggedGtid() {
    GtidEvent tagged = GtidEvent.parse(crc(MYSQL_GTID_TAGGED), MYSQL);
    assertEquals(EventType.GTID_TAGGED, tagged.type());
    assertEquals(SOURCE, tagged.sourceId());
    assertEquals("mytag", tagged.tag());
    assertEquals(1, tagged.gno());
    assertEquals(0, tagged.flags());
    assertEquals(2, tagged.lastCommitted());
    assertEquals(5, tagged.sequenceNumber());
    assertEquals(1795319847879723L, tagged.immediateCommitTimestamp());
    assertEquals(1795319847879723L, tagged.originalCommitTimestamp());
    assertEquals(284, tagged.transactionLength());
    assertEquals(90704, tagged.immediateServerVersion());
    assertEquals(90704, tagged.originalServerVersion());
    assertEquals(0, tagged.commitGroupTicket());
    assertTrue(tagged.isTagged());
    assertEquals("c4c2fd67-e628-11f1-a520-02fc00000001:mytag:1", tagged.gtid().toString());
  }

  @Test
  void taggedGtidBuilderMatchesTheServerByteForByte() {
    GtidEvent tagged = GtidEvent.parse(crc(MYSQL_GTID_TAGGED), MYSQL);
    byte[] body = java.util.Arrays.copyOfRange(MYSQL_GTID_TAGGED, 19, MYSQL_GTID_TAGGED.length - 4);
    assertArrayEquals(body, EventBodies.taggedGtid(tagged));
  }

  @Test
  void mysqlQueries() {
    QueryEvent create = QueryEvent.parse(crc(MYSQL_QUERY_CREATE_DB), MYSQL);
    assertEquals(10, create.threadId());
    assertEquals("d1", create.database());
    assertEquals("create database d1", create.query());
    assertEquals(0, create.errorCode());
    assertEquals(45, create.statusVariables().length);
    QueryEvent begin = QueryEvent.parse(crc(MYSQL_QUERY_BEGIN), MYSQL);
    assertTrue(begin.isBegin());
    assertFalse(begin.isCommit());
    QueryEvent xaCommit = QueryEvent.parse(crc(MYSQL_QUERY_XA_COMMIT), MYSQL);
    assertTrue(xaCommit.isXaCommit());
    assertEquals("XA COMMIT X'677431',X'627131',5", xaCommit.query());
    QueryEvent commit = QueryEvent.parse(crc(MARIADB_QUERY_COMMIT), MARIADB);
    assertTrue(commit.isCommit());
  }

  @Test
  void mysqlXidXaAndRotate() {
    assertEquals(6, XidEvent.parse(crc(MYSQL_XID), MYSQL).xid());
    XaPrepareEvent xa = XaPrepareEvent.parse(crc(MYSQL_XA_PREPARE), MYSQL);
    assertFalse(xa.onePhase());
    assertEquals(5, xa.formatId());
    assertArrayEquals("gt1".getBytes(StandardCharsets.US_ASCII), xa.gtrid());
    assertArrayEquals("bq1".getBytes(StandardCharsets.US_ASCII), xa.bqual());
    XaPrepareEvent one = XaPrepareEvent.parse(crc(MYSQL_XA_PREPARE_ONE_PHASE), MYSQL);
    assertTrue(one.onePhase());
    assertEquals(0, one.bqualLength());
    XaPrepareEvent maria = XaPrepareEvent.parse(crc(MARIADB_XA_PREPARE), MARIADB);
    assertEquals(5, maria.formatId());
    assertEquals(new RotateEvent(4, "binlog.000002"), RotateEvent.parse(crc(MYSQL_ROTATE), MYSQL));
  }

  @Test
  void mysqlTransactionPayload() {
    BinlogEvent event = crc(MYSQL_TRANSACTION_PAYLOAD);
    TransactionPayloadEvent payload = TransactionPayloadEvent.parse(event, MYSQL);
    assertEquals(TransactionPayloadEvent.ZSTD, payload.compressionType());
    assertEquals(135, payload.payloadSize());
    assertEquals(271, payload.uncompressedSize());
    assertEquals(19 + 12, payload.payloadOffset());
    byte[] zstdMagic = {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd};
    assertArrayEquals(zstdMagic, java.util.Arrays.copyOf(payload.payload(event), 4));
  }

  @Test
  void mysqlPreviousGtids() {
    PreviousGtidsEvent empty = PreviousGtidsEvent.parse(crc(MYSQL_PREVIOUS_GTIDS_EMPTY), MYSQL);
    assertTrue(empty.gtids().isEmpty());
    assertEquals(8, empty.encoded().length);
    PreviousGtidsEvent prev = PreviousGtidsEvent.parse(crc(MYSQL_PREVIOUS_GTIDS), MYSQL);
    assertEquals("c4c2fd67-e628-11f1-a520-02fc00000001:1-11:mytag:1", prev.gtids().toString());
  }

  @Test
  void dumpStreamEvents() {
    BinlogEvent fake = crc(MYSQL_FAKE_ROTATE);
    assertTrue(fake.header().hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F));
    assertEquals(0, fake.header().logPos());
    assertEquals(0, fake.header().timestamp());
    assertEquals(new RotateEvent(4, "binlog.000004"), RotateEvent.parse(fake));
    assertEquals(new RotateEvent(4, "mb.000004"), RotateEvent.parse(crc(MARIADB_FAKE_ROTATE)));

    assertEquals(
        new HeartbeatEvent("binlog.000004", 524),
        HeartbeatEvent.parse(crc(MYSQL_HEARTBEAT), MYSQL));
    assertEquals("mb.000004", HeartbeatEvent.parse(crc(MARIADB_HEARTBEAT), MARIADB).logFile());
    HeartbeatV2Event v2 = HeartbeatV2Event.parse(crc(MYSQL_HEARTBEAT_V2), MYSQL);
    assertEquals(new HeartbeatV2Event("binlog.000004", 524), v2);
  }

  @Test
  void heartbeatEncodersMatchTheServer() {
    assertArrayEquals(
        java.util.Arrays.copyOfRange(MYSQL_HEARTBEAT_V2, 19, MYSQL_HEARTBEAT_V2.length - 4),
        new HeartbeatV2Event("binlog.000004", 524).encodeBody());
    BinlogEvent real = BinlogEvent.wrap(MYSQL_HEARTBEAT, true);
    BinlogEvent made =
        BinlogEvent.assemble(
            real.header(), new HeartbeatEvent("binlog.000004", 524).encodeBody(), true);
    assertArrayEquals(MYSQL_HEARTBEAT, made.toByteArray());
    BinlogEvent rotate = BinlogEvent.wrap(MYSQL_FAKE_ROTATE, true);
    assertArrayEquals(
        MYSQL_FAKE_ROTATE,
        BinlogEvent.assemble(
                rotate.header(), new RotateEvent(4, "binlog.000004").encodeBody(), true)
            .toByteArray());
  }

  @Test
  void mariadbGtids() {
    MariadbGtidEvent ddl = MariadbGtidEvent.parse(crc(MARIADB_GTID_DDL), MARIADB);
    assertEquals(new MariadbGtid(0, 1, 1), ddl.gtid());
    assertTrue(ddl.isStandalone());
    assertTrue(ddl.hasFlag(MariadbGtidEvent.FL_DDL));
    assertTrue(ddl.hasFlag(MariadbGtidEvent.FL_ALLOW_PARALLEL));
    assertEquals(0, ddl.flagsExtra(), "zero padding reads as no extra flags");

    MariadbGtidEvent domain7 = MariadbGtidEvent.parse(crc(MARIADB_GTID_DOMAIN7), MARIADB);
    assertEquals(new MariadbGtid(7, 1, 1), domain7.gtid());
    assertTrue(domain7.hasFlag(MariadbGtidEvent.FL_TRANSACTIONAL));
    assertFalse(domain7.isStandalone());

    MariadbGtidEvent prepared = MariadbGtidEvent.parse(crc(MARIADB_GTID_XA_PREPARED), MARIADB);
    assertEquals(0x4c, prepared.flags());
    assertEquals(5, prepared.xaFormatId());
    assertArrayEquals("gt1bq1".getBytes(StandardCharsets.US_ASCII), prepared.xidData());
    assertEquals(MariadbGtidEvent.FL_EXTRA_MULTI_ENGINE, prepared.flagsExtra());
    assertEquals(255, prepared.extraEngines());

    MariadbGtidEvent completed = MariadbGtidEvent.parse(crc(MARIADB_GTID_XA_COMPLETED), MARIADB);
    assertTrue(completed.hasFlag(MariadbGtidEvent.FL_COMPLETED_XA));
    assertEquals(6, completed.seqNo());
    assertEquals(3, completed.bqualLength());
  }

  @Test
  void mariadbGtidListCheckpointAndAnnotate() {
    GtidListEvent list = GtidListEvent.parse(crc(MARIADB_GTID_LIST), MARIADB);
    assertEquals(0, list.flags());
    assertEquals(List.of(new MariadbGtid(7, 1, 1), new MariadbGtid(0, 1, 10)), list.gtids());
    assertEquals("0-1-10,7-1-1", list.gtidSet().toPositionString());
    assertEquals(
        "mb.000001",
        BinlogCheckpointEvent.parse(crc(MARIADB_BINLOG_CHECKPOINT), MARIADB).fileName());
    assertEquals(
        "insert into d1.t values (8,'annot')",
        AnnotateRowsEvent.parse(crc(MARIADB_ANNOTATE_ROWS), MARIADB).query());
  }

  @Test
  void streamOfRealEventsThroughTheDecoder() {
    BinlogEventDecoder decoder = new BinlogEventDecoder(ChecksumAlgorithm.CRC32, 1 << 20);
    for (byte[] event :
        List.of(
            MYSQL_FAKE_ROTATE,
            MYSQL_DUMP_FDE,
            MYSQL_PREVIOUS_GTIDS,
            MYSQL_GTID,
            MYSQL_QUERY_BEGIN,
            MYSQL_XID,
            MYSQL_HEARTBEAT,
            MYSQL_HEARTBEAT_V2)) {
      BinlogEvent e = decoder.decode(event, 0, event.length);
      assertTrue(e.hasChecksum());
    }
    assertEquals("9.7.4-2", decoder.format().serverVersion());
  }
}
