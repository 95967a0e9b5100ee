package org.binlogrelay.protocol.replication;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;

/**
 * COM_BINLOG_DUMP_GTID, a MySQL replica asking for the binlog after the GTIDs it has (or from a
 * file and a 64-bit offset). The payload, command byte included, as MySQL's source reads it ({@code
 * sql/rpl_source.cc}):
 *
 * <pre>
 *   u8     0x1e
 *   u16    flags               0x01 non-blocking, 0x02 BINLOG_THROUGH_POSITION (also USE_HEARTBEAT_EVENT_V2),
 *                              0x04 BINLOG_THROUGH_GTID
 *   u32    server id
 *   u32    file name length    at most 512
 *   n      file name           up to its first NUL byte, if any; empty: GTID auto-positioning
 *   u64    position
 *   u32    data length         MySQL's source reads these two whatever the flags; replicas send flags 0x02 and
 *   n      GTID set            binlog-connector-java flags 0 with a set; a payload may also end before them
 * </pre>
 *
 * The one codec for this command: the relay's upstream and the benchmark client encode it, the
 * serving side decodes it. Immutable.
 *
 * @param flags the dump flags, 0 to 0xFFFF
 * @param serverId the replica's server id, 0 to 2^32 - 1
 * @param fileName the file to start in, never containing a NUL; empty for GTID auto-positioning
 * @param position the offset to start at
 * @param gtids the GTIDs the replica has, encoded after the position; null: the payload ends after
 *     the position
 */
public record BinlogDumpGtidCommand(
    int flags, long serverId, String fileName, long position, MysqlGtidSet gtids) {
  /** The command byte. */
  public static final int CODE = 0x1e;

  /** The position fields are used. */
  public static final int BINLOG_THROUGH_POSITION = 0x02;

  /** The GTID set is used. */
  public static final int BINLOG_THROUGH_GTID = 0x04;

  private static final String NAME = "COM_BINLOG_DUMP_GTID";

  public BinlogDumpGtidCommand {
    Commands.checkU16(flags, NAME + " flags");
    Commands.checkU32(serverId, NAME + " server id");
    Commands.checkFileName(fileName);
  }

  /** The payload, command byte first. */
  public byte[] encode() {
    byte[] name = fileName.getBytes(StandardCharsets.UTF_8);
    byte[] data = gtids == null ? null : gtids.encode();
    ByteWriter out =
        new ByteWriter(19 + name.length + (data == null ? 0 : 4 + data.length))
            .u8(CODE)
            .u16(flags)
            .u32(serverId)
            .u32(name.length)
            .bytes(name)
            .u64(position);
    if (data != null) {
      out.u32(data.length).bytes(data);
    }
    return out.toByteArray();
  }

  /**
   * Decodes a payload including its command byte. Lengths are checked against the payload (and the
   * name's against {@link BinlogDumpCommand#MAX_FILE_NAME_BYTES}) before anything is read.
   *
   * @throws ProtocolException if it is not COM_BINLOG_DUMP_GTID, is short, or its GTID set is
   *     malformed or followed by more bytes
   */
  public static BinlogDumpGtidCommand decode(byte[] payload) {
    ByteReader in = new ByteReader(payload);
    Commands.expectCode(in, CODE, NAME);
    int flags = in.u16(NAME + " flags");
    long serverId = in.u32(NAME + " server id");
    long nameLength = in.u32(NAME + " file name length");
    if (nameLength > BinlogDumpCommand.MAX_FILE_NAME_BYTES) {
      throw new ProtocolException(
          NAME
              + ": file name of "
              + nameLength
              + " bytes, limit "
              + BinlogDumpCommand.MAX_FILE_NAME_BYTES);
    }
    String file =
        Commands.cString(in, (int) nameLength, NAME, BinlogDumpCommand.MAX_FILE_NAME_BYTES);
    long position = in.u64(NAME + " position");
    MysqlGtidSet gtids = null;
    if (in.hasRemaining()) {
      long dataLength = in.u32(NAME + " GTID data length");
      in.require(dataLength, NAME + " GTID data");
      ByteReader data = new ByteReader(in.array(), in.arrayOffset(), (int) dataLength);
      gtids = MysqlGtidSet.decode(data);
      if (data.hasRemaining()) {
        throw new ProtocolException(NAME + ": " + data.remaining() + " bytes after the GTID set");
      }
      in.skip((int) dataLength, NAME + " GTID data");
    }
    return new BinlogDumpGtidCommand(flags, serverId, file, position, gtids);
  }
}
