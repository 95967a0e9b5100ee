package org.binlogrelay.server.downstream;

import java.util.Objects;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.replication.BinlogDumpCommand;
import org.binlogrelay.protocol.replication.BinlogDumpGtidCommand;

/**
 * A replica's request for a binlog stream, as the serving side uses it; decoded by protocol's
 * {@link BinlogDumpCommand} and {@link BinlogDumpGtidCommand} (the one codec for each command) from
 * one of:
 *
 * <pre>
 * COM_BINLOG_DUMP (0x12), MySQL and MariaDB:
 *   u32    position            where to start in the file
 *   u16    flags               0x01 BINLOG_DUMP_NON_BLOCK: end with EOF instead of waiting (mysqlbinlog)
 *                              0x02 USE_HEARTBEAT_EVENT_V2 (MySQL 8.0.26+ replicas; MariaDB replicas set it too)
 *   u32    server id           the replica's
 *   rest   file name           up to its first NUL byte, if any; empty: from the first file
 *
 * COM_BINLOG_DUMP_GTID (0x1e), MySQL:
 *   u16    flags               as above; documented BINLOG_THROUGH_GTID 0x04 is not what decides, see below
 *   u32    server id
 *   u32    file name length    at most 512
 *   n      file name           up to its first NUL byte, if any; empty: GTID auto-positioning
 *   u64    position
 *   u32    data length         MySQL's source reads these two whatever the flags (rpl_source.cc); replicas
 *   n      GTID set            send flags 0x02 and binlog-connector-java flags 0 with a set
 * </pre>
 *
 * The file name is a C string to both servers: MySQL's {@code com_binlog_dump} copies it with
 * {@code strdup}, its {@code com_binlog_dump_gtid} terminates the copied bytes and reads them as a
 * string, and MariaDB's {@code COM_BINLOG_DUMP} takes {@code strlen} of it. So a name ends at its
 * first NUL byte and whatever follows is ignored, as client libraries rely on: zongji sends {@code
 * binlog.000001\0}, python-mysql-replication {@code \0\0\0} (MySQL, COM_BINLOG_DUMP_GTID) or {@code
 * \0\0\0\0} (MariaDB), which are the empty name. What an empty name means is the serving side's
 * business: the first file for COM_BINLOG_DUMP (MySQL's {@code find_log_pos} with no name,
 * MariaDB's "Find first log"), GTID auto-positioning for COM_BINLOG_DUMP_GTID.
 *
 * <p>MariaDB asks for GTID positioning differently: a plain COM_BINLOG_DUMP after {@code
 * SET @slave_connect_state='0-1-100,...'}; the connection's flavour fills {@link #startGtids} from
 * that variable ({@link #withStartGtids}), and the file name is then ignored. Immutable.
 *
 * @param command COM_BINLOG_DUMP or COM_BINLOG_DUMP_GTID
 * @param serverId the replica's server id
 * @param flags the dump flags
 * @param binlogFile the file to start in (never containing a NUL), empty for "the first one" or for
 *     GTID positioning
 * @param position the offset to start at
 * @param startGtids the GTIDs the replica has (MySQL) or its connect state (MariaDB); null when
 *     positioned by file and offset
 */
public record DumpRequest(
    Command command,
    long serverId,
    int flags,
    String binlogFile,
    long position,
    GtidSet startGtids) {

  public static final int BINLOG_DUMP_NON_BLOCK = BinlogDumpCommand.BINLOG_DUMP_NON_BLOCK;

  /** MySQL 8.0.26+: the replica understands HEARTBEAT_LOG_EVENT_V2 (64-bit positions). */
  public static final int USE_HEARTBEAT_EVENT_V2 = BinlogDumpCommand.USE_HEARTBEAT_EVENT_V2;

  public static final int BINLOG_THROUGH_GTID = BinlogDumpGtidCommand.BINLOG_THROUGH_GTID;

  /** MySQL's FN_REFLEN: longest file name accepted. */
  public static final int MAX_FILE_NAME_BYTES = BinlogDumpCommand.MAX_FILE_NAME_BYTES;

  public DumpRequest {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(binlogFile, "binlogFile");
    if (binlogFile.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(
          "a binlog file name ends at its first NUL: " + binlogFile.replace("\0", "\\0"));
    }
    if (command != Command.COM_BINLOG_DUMP && command != Command.COM_BINLOG_DUMP_GTID) {
      throw new IllegalArgumentException(command + " is not a dump command");
    }
  }

  /** True when the replica understands HEARTBEAT_LOG_EVENT_V2. */
  public boolean heartbeatV2() {
    return (flags & USE_HEARTBEAT_EVENT_V2) != 0;
  }

  /**
   * True when the replica wants an EOF at the end instead of waiting for more events (mysqlbinlog).
   */
  public boolean nonBlocking() {
    return (flags & BINLOG_DUMP_NON_BLOCK) != 0;
  }

  public DumpRequest withStartGtids(GtidSet gtids) {
    return new DumpRequest(command, serverId, flags, binlogFile, position, gtids);
  }

  /**
   * Decodes a dump packet's payload including its command byte ({@link BinlogDumpCommand}, {@link
   * BinlogDumpGtidCommand}); {@link ProtocolException} if malformed.
   */
  public static DumpRequest decode(byte[] payload) {
    int code = new ByteReader(payload).u8("dump command");
    if (code == Command.COM_BINLOG_DUMP.code()) {
      BinlogDumpCommand dump = BinlogDumpCommand.decode(payload);
      return new DumpRequest(
          Command.COM_BINLOG_DUMP,
          dump.serverId(),
          dump.flags(),
          dump.fileName(),
          dump.position(),
          null);
    }
    if (code == Command.COM_BINLOG_DUMP_GTID.code()) {
      BinlogDumpGtidCommand dump = BinlogDumpGtidCommand.decode(payload);
      return new DumpRequest(
          Command.COM_BINLOG_DUMP_GTID,
          dump.serverId(),
          dump.flags(),
          dump.fileName(),
          dump.position(),
          dump.gtids());
    }
    throw new ProtocolException("not a dump command: " + Command.nameOf(code));
  }

  /** Encodes the request as a replica would send it (for tests). */
  public byte[] encode() {
    if (command == Command.COM_BINLOG_DUMP) {
      return new BinlogDumpCommand(position, flags, serverId, binlogFile).encode();
    }
    return new BinlogDumpGtidCommand(
            flags, serverId, binlogFile, position, (MysqlGtidSet) startGtids)
        .encode();
  }
}
