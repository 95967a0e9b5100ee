package org.binlogrelay.protocol.replication;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * COM_BINLOG_DUMP, a replica asking for the binlog from a file and offset (MySQL and MariaDB;
 * MariaDB also for a GTID start, after {@code SET @slave_connect_state}). The payload, command byte
 * included, as both servers read it (MySQL {@code sql/rpl_source.cc}, MariaDB {@code
 * sql/sql_repl.cc}):
 *
 * <pre>
 *   u8     0x12
 *   u32    position            where to start in the file
 *   u16    flags               0x01 BINLOG_DUMP_NON_BLOCK: end with EOF instead of waiting (mysqlbinlog)
 *                              0x02 MySQL 8.0.26+ USE_HEARTBEAT_EVENT_V2; MariaDB BINLOG_SEND_ANNOTATE_ROWS_EVENT
 *   u32    server id           the replica's
 *   rest   file name           up to its first NUL byte, if any; empty: from the first file
 * </pre>
 *
 * The file name is a C string to both servers ({@code strdup}, {@code strlen}), so {@link #decode}
 * ends it at the first NUL and ignores what follows, as client libraries rely on (zongji sends
 * {@code binlog.000001\0}). The one codec for this command: the relay's upstream and the benchmark
 * client encode it, the serving side decodes it. Immutable.
 *
 * @param position the offset to start at, 0 to 2^32 - 1
 * @param flags the dump flags, 0 to 0xFFFF
 * @param serverId the replica's server id, 0 to 2^32 - 1
 * @param fileName the file to start in, never containing a NUL; empty for "the first one"
 */
public record BinlogDumpCommand(long position, int flags, long serverId, String fileName) {
  /** The command byte. */
  public static final int CODE = 0x12;

  /** End with EOF instead of waiting for more events (mysqlbinlog). */
  public static final int BINLOG_DUMP_NON_BLOCK = 0x01;

  /** MySQL 8.0.26+: the replica understands HEARTBEAT_LOG_EVENT_V2 (64-bit positions). */
  public static final int USE_HEARTBEAT_EVENT_V2 = 0x02;

  /**
   * MariaDB: send ANNOTATE_ROWS events (else they are left out, a hole in the file). Same bit as
   * above.
   */
  public static final int BINLOG_SEND_ANNOTATE_ROWS_EVENT = 0x02;

  /** MySQL's FN_REFLEN: longest file name accepted. */
  public static final int MAX_FILE_NAME_BYTES = 512;

  private static final String NAME = "COM_BINLOG_DUMP";

  public BinlogDumpCommand {
    if (position < 0 || position > 0xFFFFFFFFL) {
      throw new IllegalArgumentException(
          NAME + " carries a 4-byte position; " + position + " does not fit");
    }
    Commands.checkU16(flags, NAME + " flags");
    Commands.checkU32(serverId, NAME + " server id");
    Commands.checkFileName(fileName);
  }

  /** The payload, command byte first. */
  public byte[] encode() {
    byte[] name = fileName.getBytes(StandardCharsets.UTF_8);
    return new ByteWriter(11 + name.length)
        .u8(CODE)
        .u32(position)
        .u16(flags)
        .u32(serverId)
        .bytes(name)
        .toByteArray();
  }

  /**
   * Decodes a payload including its command byte.
   *
   * @throws ProtocolException if it is not COM_BINLOG_DUMP, is short, or names a file longer than
   *     {@link #MAX_FILE_NAME_BYTES}
   */
  public static BinlogDumpCommand decode(byte[] payload) {
    ByteReader in = new ByteReader(payload);
    Commands.expectCode(in, CODE, NAME);
    long position = in.u32(NAME + " position");
    int flags = in.u16(NAME + " flags");
    long serverId = in.u32(NAME + " server id");
    String file = Commands.cString(in, in.remaining(), NAME, MAX_FILE_NAME_BYTES);
    return new BinlogDumpCommand(position, flags, serverId, file);
  }
}
