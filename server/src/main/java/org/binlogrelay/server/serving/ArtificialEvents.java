package org.binlogrelay.server.serving;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.HeartbeatV2Event;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.MariadbGtid;

/**
 * The events a dump thread makes up rather than reads from a file, byte for byte as MySQL 9's
 * {@code Binlog_sender} and MariaDB 10.11's {@code mysql_binlog_send} make them. All carry
 * timestamp 0 and the sender's own server_id; each ends with a CRC32 when the stream's current
 * checksum algorithm is CRC32 (the replica's declared one before the first FORMAT_DESCRIPTION, the
 * file's after it).
 *
 * <pre>
 *   ROTATE (4)        flags 0x20 (ARTIFICIAL), log_pos 0; body u64 position, file name
 *   HEARTBEAT (27)    flags 0, log_pos = position (u32); body file name. MariaDB: position past 4 GiB is
 *                     log_pos 0 and a u64 before the name
 *   HEARTBEAT_V2 (41) MySQL, for replicas that set USE_HEARTBEAT_EVENT_V2: flags 0, log_pos = position (u32);
 *                     body: field 1 file name, field 2 position (packed), end mark
 *   GTID_LIST (163)   MariaDB, after the group where a replica's GTID position is reached: flags 0x20,
 *                     log_pos = where the stream stands; body u32 count, count x (u32 domain, u32 server, u64 seq)
 * </pre>
 *
 * Stateless.
 */
final class ArtificialEvents {
  private static final long U32_MAX = 0xffff_ffffL;

  private ArtificialEvents() {}

  static byte[] rotate(long serverId, String file, long position, boolean checksum) {
    return event(
        EventType.ROTATE,
        serverId,
        0,
        EventHeader.LOG_EVENT_ARTIFICIAL_F,
        new RotateEvent(position, file).encodeBody(),
        checksum);
  }

  static byte[] heartbeat(long serverId, String file, long position, boolean checksum) {
    return event(EventType.HEARTBEAT, serverId, position & U32_MAX, 0, name(file), checksum);
  }

  static byte[] heartbeatV2(long serverId, String file, long position, boolean checksum) {
    return event(
        EventType.HEARTBEAT_V2,
        serverId,
        position & U32_MAX,
        0,
        new HeartbeatV2Event(file, position).encodeBody(),
        checksum);
  }

  static byte[] mariadbHeartbeat(long serverId, String file, long position, boolean checksum) {
    if (position <= U32_MAX) {
      return heartbeat(serverId, file, position, checksum);
    }
    byte[] name = name(file);
    byte[] body = new ByteWriter(8 + name.length).u64(position).bytes(name).toByteArray();
    return event(EventType.HEARTBEAT, serverId, 0, 0, body, checksum);
  }

  static byte[] gtidList(long serverId, List<MariadbGtid> gtids, long logPos, boolean checksum) {
    ByteWriter body = new ByteWriter(4 + 16 * gtids.size()).u32(gtids.size());
    for (MariadbGtid g : gtids) {
      body.u32(g.domainId()).u32(g.serverId()).u64(g.seqNo());
    }
    return event(
        EventType.GTID_LIST,
        serverId,
        logPos & U32_MAX,
        EventHeader.LOG_EVENT_ARTIFICIAL_F,
        body.toByteArray(),
        checksum);
  }

  private static byte[] name(String file) {
    return file.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] event(
      EventType type, long serverId, long logPos, int flags, byte[] body, boolean checksum) {
    EventHeader header = new EventHeader(0, type.code(), serverId, 0, logPos, flags);
    return BinlogEvent.assemble(header, body, checksum).toByteArray();
  }
}
