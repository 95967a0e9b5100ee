package org.binlogrelay.bench.flavor;

import java.io.IOException;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.stream.BinlogPosition;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.replication.BinlogDumpCommand;

/**
 * MariaDB 10.x and later (and a relay serving a MariaDB primary's binlogs). A replica announces
 * {@code @mariadb_slave_capability = 4} (GTIDs); a GTID dump sets {@code @slave_connect_state} and
 * sends a COM_BINLOG_DUMP ({@link BinlogDumpCommand}) without a file name. The dump asks for
 * ANNOTATE_ROWS (flag 0x02) so that the stream holds the files' every event. Stateless and
 * thread-safe.
 */
final class MariadbSourceFlavor implements SourceFlavor {
  private static final int NON_BLOCK = BinlogDumpCommand.BINLOG_DUMP_NON_BLOCK;
  private static final int SEND_ANNOTATE_ROWS = BinlogDumpCommand.BINLOG_SEND_ANNOTATE_ROWS_EVENT;
  private static final int SLAVE_CAPABILITY = 4;

  @Override
  public String name() {
    return "MariaDB";
  }

  @Override
  public void prepareDump(
      SourceConnection connection, String checksum, long heartbeatMillis, long serverId)
      throws IOException {
    connection.execute("SET @master_binlog_checksum = '" + checksum + "'");
    connection.execute("SET @mariadb_slave_capability = " + SLAVE_CAPABILITY);
    if (heartbeatMillis > 0) {
      connection.execute("SET @master_heartbeat_period = " + heartbeatMillis * 1_000_000L);
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
    send(connection, start.file(), start.offset(), serverId, nonBlocking);
  }

  @Override
  public void dumpAfterGtids(
      SourceConnection connection, String gtids, long serverId, boolean nonBlocking)
      throws IOException {
    String position = gtids.isBlank() ? "" : MariadbGtidSet.parsePosition(gtids).toPositionString();
    connection.execute(
        "SET @slave_connect_state = '" + position + "', @slave_gtid_strict_mode = 1");
    send(connection, "", 4, serverId, nonBlocking);
  }

  private static void send(
      SourceConnection connection, String file, long position, long serverId, boolean nonBlocking)
      throws IOException {
    connection.send(
        new BinlogDumpCommand(
                position, SEND_ANNOTATE_ROWS | (nonBlocking ? NON_BLOCK : 0), serverId, file)
            .encode());
  }

  @Override
  public String binlogStatusStatement() {
    return "SHOW MASTER STATUS";
  }

  @Override
  public String executedGtids(SourceConnection connection) throws IOException {
    String text = connection.queryValue("SELECT @@GLOBAL.gtid_binlog_pos");
    return text == null ? "" : text;
  }

  @Override
  public String replicaExecuted(SourceConnection replica) throws IOException {
    String text = replica.queryValue("SELECT @@GLOBAL.gtid_slave_pos");
    return text == null ? "" : text;
  }

  @Override
  public long transactionsBetween(String earlier, String later) {
    MariadbGtidSet before = MariadbGtidSet.parsePosition(earlier);
    long n = 0;
    for (MariadbGtid g : MariadbGtidSet.parsePosition(later).positions()) {
      n += Math.max(0, g.seqNo() - before.newest(g.domainId()).map(MariadbGtid::seqNo).orElse(0L));
    }
    return n;
  }

  @Override
  public String stopReplicaStatement() {
    return "STOP SLAVE";
  }

  @Override
  public String startReplicaStatement() {
    return "START SLAVE";
  }
}
