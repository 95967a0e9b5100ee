package org.binlogrelay.bench.flavor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.stream.BinlogPosition;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;

/**
 * MySQL 8.0 and later (and a relay serving a MySQL primary's binlogs). Commands, as MySQL reads them
 * ({@code sql/rpl_source.cc}):
 *
 * <pre>
 *   COM_BINLOG_DUMP      0x12 | u32 position | u16 flags | u32 server_id | file name
 *   COM_BINLOG_DUMP_GTID 0x1e | u16 flags | u32 server_id | u32 name length | name | u64 position
 *                        | u32 data length | encoded GTID set            flags: 0x01 non-blocking, 0x04 through GTIDs
 * </pre>
 *
 * Stateless and thread-safe.
 */
final class MysqlSourceFlavor implements SourceFlavor {
  private static final int COM_BINLOG_DUMP = 0x12;
  private static final int COM_BINLOG_DUMP_GTID = 0x1e;
  private static final int NON_BLOCK = 0x01;
  private static final int THROUGH_GTID = 0x04;

  @Override
  public String name() {
    return "MySQL";
  }

  @Override
  public void prepareDump(SourceConnection connection, String checksum, long heartbeatMillis, long serverId)
      throws IOException {
    String uuid = UUID.randomUUID().toString();
    connection.execute("SET @master_binlog_checksum = '" + checksum + "', @source_binlog_checksum = '" + checksum
        + "'");
    connection.execute("SET @replica_uuid = '" + uuid + "', @slave_uuid = '" + uuid + "'");
    if (heartbeatMillis > 0) {
      long nanos = heartbeatMillis * 1_000_000L;
      connection.execute("SET @master_heartbeat_period = " + nanos + ", @source_heartbeat_period = " + nanos);
    }
  }

  @Override
  public void dumpFrom(SourceConnection connection, BinlogPosition start, long serverId, boolean nonBlocking)
      throws IOException {
    if (start.offset() > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("COM_BINLOG_DUMP carries a 4-byte position; " + start + " does not fit");
    }
    connection.send(new ByteWriter().u8(COM_BINLOG_DUMP).u32(start.offset()).u16(nonBlocking ? NON_BLOCK : 0)
        .u32(serverId).bytes(start.file().getBytes(StandardCharsets.UTF_8)).toByteArray());
  }

  @Override
  public void dumpAfterGtids(SourceConnection connection, String gtids, long serverId, boolean nonBlocking)
      throws IOException {
    byte[] set = MysqlGtidSet.parse(gtids).encode();
    connection.send(new ByteWriter().u8(COM_BINLOG_DUMP_GTID).u16(THROUGH_GTID | (nonBlocking ? NON_BLOCK : 0))
        .u32(serverId).u32(0).u64(4).u32(set.length).bytes(set).toByteArray());
  }

  @Override
  public String binlogStatusStatement() {
    return "SHOW BINARY LOG STATUS";
  }

  @Override
  public String executedGtids(SourceConnection connection) throws IOException {
    String text = connection.queryValue("SELECT @@GLOBAL.gtid_executed");
    return text == null ? "" : text.replace("\n", "");
  }

  @Override
  public String replicaExecuted(SourceConnection replica) throws IOException {
    return executedGtids(replica);
  }

  @Override
  public long transactionsBetween(String earlier, String later) {
    return MysqlGtidSet.parse(later).subtract(MysqlGtidSet.parse(earlier)).size().longValueExact();
  }

  @Override
  public String stopReplicaStatement() {
    return "STOP REPLICA";
  }

  @Override
  public String startReplicaStatement() {
    return "START REPLICA";
  }
}
