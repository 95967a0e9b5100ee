package org.binlogrelay.bench.flavor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.stream.BinlogPosition;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;

/**
 * MariaDB 10.x and later (and a relay serving a MariaDB primary's binlogs). A replica announces
 * {@code @mariadb_slave_capability = 4} (GTIDs); a GTID dump sets {@code @slave_connect_state} and sends a
 * COM_BINLOG_DUMP without a file name. The dump asks for ANNOTATE_ROWS (flag 0x02) so that the stream holds the
 * files' every event. Stateless and thread-safe.
 */
final class MariadbSourceFlavor implements SourceFlavor {
  private static final int COM_BINLOG_DUMP = 0x12;
  private static final int NON_BLOCK = 0x01;
  private static final int SEND_ANNOTATE_ROWS = 0x02;
  private static final int SLAVE_CAPABILITY = 4;

  @Override
  public String name() {
    return "MariaDB";
  }

  @Override
  public void prepareDump(SourceConnection connection, String checksum, long heartbeatMillis, long serverId)
      throws IOException {
    connection.execute("SET @master_binlog_checksum = '" + checksum + "'");
    connection.execute("SET @mariadb_slave_capability = " + SLAVE_CAPABILITY);
    if (heartbeatMillis > 0) {
      connection.execute("SET @master_heartbeat_period = " + heartbeatMillis * 1_000_000L);
    }
  }

  @Override
  public void dumpFrom(SourceConnection connection, BinlogPosition start, long serverId, boolean nonBlocking)
      throws IOException {
    if (start.offset() > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("COM_BINLOG_DUMP carries a 4-byte position; " + start + " does not fit");
    }
    send(connection, start.file(), start.offset(), serverId, nonBlocking);
  }

  @Override
  public void dumpAfterGtids(SourceConnection connection, String gtids, long serverId, boolean nonBlocking)
      throws IOException {
    String position = gtids.isBlank() ? "" : MariadbGtidSet.parsePosition(gtids).toPositionString();
    connection.execute("SET @slave_connect_state = '" + position + "', @slave_gtid_strict_mode = 1");
    send(connection, "", 4, serverId, nonBlocking);
  }

  private static void send(SourceConnection connection, String file, long position, long serverId,
      boolean nonBlocking) throws IOException {
    connection.send(new ByteWriter().u8(COM_BINLOG_DUMP).u32(position)
        .u16(SEND_ANNOTATE_ROWS | (nonBlocking ? NON_BLOCK : 0)).u32(serverId)
        .bytes(file.getBytes(StandardCharsets.UTF_8)).toByteArray());
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
