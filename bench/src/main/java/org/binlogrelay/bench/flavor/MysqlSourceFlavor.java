package org.binlogrelay.bench.flavor;

import java.io.IOException;
import java.util.UUID;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.stream.BinlogPosition;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.replication.BinlogDumpCommand;
import org.binlogrelay.protocol.replication.BinlogDumpGtidCommand;

/**
 * MySQL 8.0 and later (and a relay serving a MySQL primary's binlogs). Dumps with COM_BINLOG_DUMP
 * ({@link BinlogDumpCommand}) from a file and offset, or COM_BINLOG_DUMP_GTID ({@link
 * BinlogDumpGtidCommand}) after a GTID set; flags 0x01 non-blocking, 0x04 through GTIDs.
 *
 * <p>Stateless and thread-safe.
 */
final class MysqlSourceFlavor implements SourceFlavor {
  private static final int NON_BLOCK = BinlogDumpCommand.BINLOG_DUMP_NON_BLOCK;
  private static final int THROUGH_GTID = BinlogDumpGtidCommand.BINLOG_THROUGH_GTID;

  @Override
  public String name() {
    return "MySQL";
  }

  @Override
  public void prepareDump(
      SourceConnection connection, String checksum, long heartbeatMillis, long serverId)
      throws IOException {
    String uuid = UUID.randomUUID().toString();
    connection.execute(
        "SET @master_binlog_checksum = '"
            + checksum
            + "', @source_binlog_checksum = '"
            + checksum
            + "'");
    connection.execute("SET @replica_uuid = '" + uuid + "', @slave_uuid = '" + uuid + "'");
    if (heartbeatMillis > 0) {
      long nanos = heartbeatMillis * 1_000_000L;
      connection.execute(
          "SET @master_heartbeat_period = " + nanos + ", @source_heartbeat_period = " + nanos);
    }
  }

  @Override
  public void dumpFrom(
      SourceConnection connection, BinlogPosition start, long serverId, boolean nonBlocking)
      throws IOException {
    if (start.offset() > 0xFFFFFFFFL) {
      throw new IllegalArgumentException(
          "COM_BINLOG_DUMP carries a 4-byte position; " + start + " does not fit");
    }
    connection.send(
        new BinlogDumpCommand(start.offset(), nonBlocking ? NON_BLOCK : 0, serverId, start.file())
            .encode());
  }

  @Override
  public void dumpAfterGtids(
      SourceConnection connection, String gtids, long serverId, boolean nonBlocking)
      throws IOException {
    connection.send(
        new BinlogDumpGtidCommand(
                THROUGH_GTID | (nonBlocking ? NON_BLOCK : 0),
                serverId,
                "",
                4,
                MysqlGtidSet.parse(gtids))
            .encode());
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
