package org.binlogrelay.protocol.event;

import static org.binlogrelay.protocol.event.EventBodies.utf8;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;

/**
 * Test side: one or more checksummed events of every parsed type, builder-made and captured, with
 * their format.
 */
final class SampleEvents {
  /** An event and the FORMAT_DESCRIPTION that describes it. */
  record Sample(String name, byte[] event, FormatDescriptionEvent format) {
    @Override
    public String toString() {
      return name;
    }
  }

  private SampleEvents() {}

  static List<Sample> all() {
    List<Sample> out = new ArrayList<>();
    EventBuilder my = EventBuilder.mysql();
    add(out, my, "FDE mysql", my.addFormatDescription(ChecksumAlgorithm.CRC32));
    UUID uuid = UUID.fromString("c4c2fd67-e628-11f1-a520-02fc00000001");
    add(
        out,
        my,
        "PREVIOUS_GTIDS",
        my.add(
            EventType.PREVIOUS_GTIDS,
            MysqlGtidSet.parse(uuid + ":1-9:20," + uuid + ":tg:1-3").encode()));
    add(
        out,
        my,
        "GTID",
        my.add(
            EventType.GTID, EventBodies.gtid(EventBodies.gtidEvent(EventType.GTID, uuid, "", 9))));
    add(
        out,
        my,
        "ANONYMOUS_GTID",
        my.add(
            EventType.ANONYMOUS_GTID,
            EventBodies.gtid(
                EventBodies.gtidEvent(EventType.ANONYMOUS_GTID, new UUID(0, 0), "", 0))));
    add(
        out,
        my,
        "GTID_TAGGED",
        my.add(
            EventType.GTID_TAGGED,
            EventBodies.taggedGtid(EventBodies.gtidEvent(EventType.GTID_TAGGED, uuid, "tg", 300))));
    add(
        out,
        my,
        "QUERY",
        my.add(EventType.QUERY, EventBodies.query(EventBodies.queryEvent("db1", "BEGIN"), 13)));
    add(out, my, "XID", my.add(EventType.XID, new XidEvent(77).encodeBody()));
    add(
        out,
        my,
        "XA_PREPARE",
        my.add(
            EventType.XA_PREPARE,
            EventBodies.xaPrepare(new XaPrepareEvent(false, 1, 3, 2, utf8("abcde")))));
    add(
        out,
        my,
        "TRANSACTION_PAYLOAD",
        my.add(
            EventType.TRANSACTION_PAYLOAD,
            EventBodies.transactionPayload(TransactionPayloadEvent.ZSTD, 500, new byte[40])));
    add(
        out,
        my,
        "HEARTBEAT",
        my.add(EventType.HEARTBEAT, new HeartbeatEvent("binlog.000001", 0).encodeBody()));
    add(
        out,
        my,
        "HEARTBEAT_V2",
        my.add(
            EventType.HEARTBEAT_V2, new HeartbeatV2Event("binlog.000001", 1L << 33).encodeBody()));
    add(
        out,
        my,
        "ROTATE",
        my.add(EventType.ROTATE, new RotateEvent(4, "binlog.000002").encodeBody()));
    add(out, my, "STOP", my.add(EventType.STOP, new byte[0]));

    EventBuilder ma = EventBuilder.mariadb();
    add(out, ma, "FDE mariadb", ma.addFormatDescription(ChecksumAlgorithm.CRC32));
    add(
        out,
        ma,
        "GTID_LIST",
        ma.add(
            EventType.GTID_LIST,
            EventBodies.gtidList(
                new GtidListEvent(
                    0, List.of(new MariadbGtid(0, 1, 10), new MariadbGtid(7, 1, 1))))));
    add(
        out,
        ma,
        "BINLOG_CHECKPOINT",
        ma.add(EventType.BINLOG_CHECKPOINT, EventBodies.binlogCheckpoint("mb.000001")));
    add(
        out,
        ma,
        "MARIADB_GTID xa",
        ma.add(
            EventType.MARIADB_GTID,
            EventBodies.mariadbGtid(
                new MariadbGtidEvent(
                    5,
                    0,
                    1,
                    MariadbGtidEvent.FL_PREPARED_XA | MariadbGtidEvent.FL_GROUP_COMMIT_ID,
                    3,
                    1,
                    2,
                    2,
                    utf8("abcd"),
                    MariadbGtidEvent.FL_EXTRA_MULTI_ENGINE | MariadbGtidEvent.FL_COMMIT_ALTER,
                    1,
                    4))));
    add(
        out,
        ma,
        "ANNOTATE_ROWS",
        ma.add(EventType.ANNOTATE_ROWS, utf8("insert into t values (1)")));

    FormatDescriptionEvent mysql =
        FormatDescriptionEvent.parse(RealEventBytes.MYSQL_FDE, 0, RealEventBytes.MYSQL_FDE.length);
    FormatDescriptionEvent mariadb =
        FormatDescriptionEvent.parse(
            RealEventBytes.MARIADB_FDE, 0, RealEventBytes.MARIADB_FDE.length);
    out.add(new Sample("real GTID_TAGGED", RealEventBytes.MYSQL_GTID_TAGGED, mysql));
    out.add(new Sample("real GTID", RealEventBytes.MYSQL_GTID, mysql));
    out.add(new Sample("real QUERY", RealEventBytes.MYSQL_QUERY_CREATE_DB, mysql));
    out.add(
        new Sample("real TRANSACTION_PAYLOAD", RealEventBytes.MYSQL_TRANSACTION_PAYLOAD, mysql));
    out.add(new Sample("real PREVIOUS_GTIDS", RealEventBytes.MYSQL_PREVIOUS_GTIDS, mysql));
    out.add(new Sample("real HEARTBEAT_V2", RealEventBytes.MYSQL_HEARTBEAT_V2, mysql));
    out.add(new Sample("real XA_PREPARE", RealEventBytes.MYSQL_XA_PREPARE, mysql));
    out.add(new Sample("real MARIADB_GTID xa", RealEventBytes.MARIADB_GTID_XA_PREPARED, mariadb));
    out.add(new Sample("real GTID_LIST", RealEventBytes.MARIADB_GTID_LIST, mariadb));
    out.add(new Sample("real FDE mariadb", RealEventBytes.MARIADB_FDE_IN_USE, mariadb));
    return out;
  }

  private static void add(List<Sample> out, EventBuilder b, String name, byte[] event) {
    out.add(new Sample(name, event, b.format()));
  }
}
