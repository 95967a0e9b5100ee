package org.binlogrelay.protocol.txn;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.MariadbGtidEvent;

/**
 * Builds a synthetic binlog stream: events back to back from position 4, each with a correct
 * event_size, log_pos (its end) and CRC32, and bodies laid out as the servers write them (only the
 * fields the tracker reads are meaningful; rows and table maps are filler).
 */
final class StreamBuilder {
  static final UUID SOURCE = UUID.fromString("3b1e7c52-0000-4000-8000-00000000f001");

  /** One event and where it starts. */
  record Placed(BinlogEvent event, long position) {
    long end() {
      return position + event.length();
    }
  }

  private final List<Placed> events = new ArrayList<>();
  private long position = 4;
  private long serverId = 1;

  List<Placed> events() {
    return events;
  }

  long position() {
    return position;
  }

  StreamBuilder serverId(long id) {
    serverId = id;
    return this;
  }

  StreamBuilder event(EventType type, byte[] body) {
    return event(type.code(), 0, body);
  }

  StreamBuilder event(int typeCode, int flags, byte[] body) {
    int size = EventHeader.SIZE + body.length + 4;
    EventHeader header =
        new EventHeader(1_700_000_000L, typeCode, serverId, size, position + size, flags);
    BinlogEvent event = BinlogEvent.assemble(header, body, true);
    events.add(new Placed(event, position));
    position += size;
    return this;
  }

  // --- events both flavours write ---------------------------------------------------------------

  StreamBuilder fde(String serverVersion) {
    ByteWriter w = new ByteWriter().u16(4);
    byte[] version = new byte[50];
    byte[] text = serverVersion.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(text, 0, version, 0, text.length);
    w.bytes(version).u32(0).u8(EventHeader.SIZE);
    byte[] postHeaders = new byte[42];
    postHeaders[EventType.QUERY.code() - 1] = 13;
    postHeaders[EventType.ROTATE.code() - 1] = 8;
    w.bytes(postHeaders)
        .u8(1); // checksum algorithm CRC32; the checksum itself is appended by assemble
    return event(EventType.FORMAT_DESCRIPTION, w.toByteArray());
  }

  StreamBuilder query(String sql) {
    return event(EventType.QUERY, queryBody(sql));
  }

  static byte[] queryBody(String sql) {
    byte[] db = "fx".getBytes(StandardCharsets.US_ASCII);
    return new ByteWriter()
        .u32(7)
        .u32(0)
        .u8(db.length)
        .u16(0)
        .u16(0)
        .bytes(db)
        .u8(0)
        .bytes(sql.getBytes(StandardCharsets.UTF_8))
        .toByteArray();
  }

  StreamBuilder begin() {
    return query("BEGIN");
  }

  StreamBuilder commit() {
    return query("COMMIT");
  }

  StreamBuilder tableMap() {
    return event(EventType.TABLE_MAP, filler(20));
  }

  StreamBuilder rows(EventType type) {
    return event(type, filler(30));
  }

  StreamBuilder xid(long xid) {
    return event(EventType.XID, new ByteWriter().u64(xid).toByteArray());
  }

  StreamBuilder xaPrepare(boolean onePhase) {
    byte[] gtrid = "xa-1".getBytes(StandardCharsets.US_ASCII);
    return event(
        EventType.XA_PREPARE,
        new ByteWriter()
            .u8(onePhase ? 1 : 0)
            .u32(1)
            .u32(gtrid.length)
            .u32(0)
            .bytes(gtrid)
            .toByteArray());
  }

  StreamBuilder intvar() {
    return event(EventType.INTVAR, new ByteWriter().u8(2).u64(5).toByteArray());
  }

  StreamBuilder userVar() {
    return event(EventType.USER_VAR, filler(12));
  }

  StreamBuilder rotate(String next) {
    return event(EventType.ROTATE, new ByteWriter().u64(4).string(next).toByteArray());
  }

  StreamBuilder stop() {
    return event(EventType.STOP, new byte[0]);
  }

  StreamBuilder heartbeat() {
    return event(EventType.HEARTBEAT, "binlog.000001".getBytes(StandardCharsets.US_ASCII));
  }

  // --- MySQL
  // ----------------------------------------------------------------------------------------

  StreamBuilder gtid(long gno) {
    return event(EventType.GTID, mysqlGtidBody(SOURCE, gno));
  }

  StreamBuilder anonymousGtid() {
    return event(EventType.ANONYMOUS_GTID, mysqlGtidBody(new UUID(0, 0), 0));
  }

  static byte[] mysqlGtidBody(UUID source, long gno) {
    return new ByteWriter()
        .u8(0)
        .u64be(source.getMostSignificantBits())
        .u64be(source.getLeastSignificantBits())
        .u64(gno)
        .u8(2)
        .u64(0)
        .u64(1)
        .toByteArray();
  }

  StreamBuilder previousGtids() {
    return event(EventType.PREVIOUS_GTIDS, new ByteWriter().u64(0).toByteArray());
  }

  StreamBuilder payload() {
    byte[] compressed = filler(40);
    ByteWriter w = new ByteWriter();
    field(w, 1, compressed.length);
    field(w, 2, 255); // compression NONE
    field(w, 3, compressed.length);
    w.lenencInt(0).bytes(compressed);
    return event(EventType.TRANSACTION_PAYLOAD, w.toByteArray());
  }

  private static void field(ByteWriter w, int type, long value) {
    byte[] encoded = new ByteWriter().lenencInt(value).toByteArray();
    w.lenencInt(type).lenencInt(encoded.length).bytes(encoded);
  }

  // --- MariaDB
  // --------------------------------------------------------------------------------------

  StreamBuilder mariadbGtid(long domain, long seqNo, int flags) {
    ByteWriter w = new ByteWriter().u64(seqNo).u32(domain).u8(flags);
    if ((flags & (MariadbGtidEvent.FL_PREPARED_XA | MariadbGtidEvent.FL_COMPLETED_XA)) != 0) {
      byte[] gtrid = "xa-1".getBytes(StandardCharsets.US_ASCII);
      w.u32(1).u8(gtrid.length).u8(0).bytes(gtrid);
    }
    while (w.size() < MariadbGtidEvent.POST_HEADER_LENGTH) {
      w.u8(0);
    }
    return event(EventType.MARIADB_GTID, w.toByteArray());
  }

  StreamBuilder gtidList() {
    return event(EventType.GTID_LIST, new ByteWriter().u32(0).toByteArray());
  }

  StreamBuilder checkpoint() {
    byte[] name = "mariadb-bin.000001".getBytes(StandardCharsets.US_ASCII);
    return event(
        EventType.BINLOG_CHECKPOINT, new ByteWriter().u32(name.length).bytes(name).toByteArray());
  }

  StreamBuilder annotate(String sql) {
    return event(EventType.ANNOTATE_ROWS, sql.getBytes(StandardCharsets.UTF_8));
  }

  static byte[] filler(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 7 + 1);
    }
    return b;
  }
}
