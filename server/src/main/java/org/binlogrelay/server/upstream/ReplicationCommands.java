package org.binlogrelay.server.upstream;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * Payloads of the client commands a replica sends (the packet header is added by the connection). Layouts,
 * as the servers read them (MySQL {@code sql/rpl_source.cc}, MariaDB {@code sql/sql_repl.cc}):
 *
 * <pre>
 *   COM_QUERY            0x03 | statement text
 *   COM_REGISTER_SLAVE   0x15 | u32 server_id | u8 len + report_host | u8 len + report_user
 *                        | u8 len + report_password | u16 report_port | u32 rank (ignored) | u32 source_id (0)
 *   COM_BINLOG_DUMP      0x12 | u32 position | u16 flags | u32 server_id | file name (rest of packet)
 *   COM_BINLOG_DUMP_GTID 0x1e | u16 flags | u32 server_id | u32 name length | file name | u64 position
 *                        | u32 data length | encoded GTID set (MySQL only)
 * </pre>
 *
 * Stateless.
 */
final class ReplicationCommands {
  static final int COM_QUERY = 0x03;
  static final int COM_BINLOG_DUMP = 0x12;
  static final int COM_REGISTER_SLAVE = 0x15;
  static final int COM_BINLOG_DUMP_GTID = 0x1e;

  /** COM_BINLOG_DUMP_GTID flag: the position fields are used. */
  static final int BINLOG_THROUGH_POSITION = 0x02;
  /** COM_BINLOG_DUMP_GTID flag: the GTID set is used. */
  static final int BINLOG_THROUGH_GTID = 0x04;
  /** MariaDB COM_BINLOG_DUMP flag: send ANNOTATE_ROWS events (else they are left out, a hole in the file). */
  static final int BINLOG_SEND_ANNOTATE_ROWS_EVENT = 0x02;

  /** The longest report host, user or password COM_REGISTER_SLAVE can carry in its one-byte lengths. */
  static final int MAX_REPORT_FIELD = 250;

  private ReplicationCommands() {}

  static byte[] query(String sql) {
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    return new ByteWriter(1 + text.length).u8(COM_QUERY).bytes(text).toByteArray();
  }

  static byte[] registerReplica(long serverId, String reportHost, int reportPort) {
    byte[] host = reportField(reportHost, "report host");
    return new ByteWriter(18 + host.length)
        .u8(COM_REGISTER_SLAVE)
        .u32(serverId)
        .u8(host.length)
        .bytes(host)
        .u8(0) // report user
        .u8(0) // report password
        .u16(reportPort)
        .u32(0) // replication rank, ignored since MySQL 5.5
        .u32(0) // source id: the server fills in its own
        .toByteArray();
  }

  static byte[] binlogDump(String file, long position, int flags, long serverId) {
    if (position < 0 || position > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("COM_BINLOG_DUMP carries a 4-byte position; " + position + " does not fit");
    }
    byte[] name = file.getBytes(StandardCharsets.UTF_8);
    return new ByteWriter(11 + name.length)
        .u8(COM_BINLOG_DUMP)
        .u32(position)
        .u16(flags)
        .u32(serverId)
        .bytes(name)
        .toByteArray();
  }

  static byte[] binlogDumpGtid(int flags, long serverId, String file, long position, byte[] encodedGtids) {
    byte[] name = file.getBytes(StandardCharsets.UTF_8);
    return new ByteWriter(23 + name.length + encodedGtids.length)
        .u8(COM_BINLOG_DUMP_GTID)
        .u16(flags)
        .u32(serverId)
        .u32(name.length)
        .bytes(name)
        .u64(position)
        .u32(encodedGtids.length)
        .bytes(encodedGtids)
        .toByteArray();
  }

  private static byte[] reportField(String value, String what) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_REPORT_FIELD) {
      throw new IllegalArgumentException(what + " '" + value + "' is " + bytes.length + " bytes; COM_REGISTER_SLAVE"
          + " takes at most " + MAX_REPORT_FIELD);
    }
    return bytes;
  }
}
