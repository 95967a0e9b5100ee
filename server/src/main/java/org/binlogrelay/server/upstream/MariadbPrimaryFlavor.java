package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.util.List;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.GtidListEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.replication.BinlogDumpCommand;
import org.binlogrelay.storage.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MariaDB primary (10.x, 11.x). A replica announces {@code @mariadb_slave_capability=4} (it
 * understands GTID events; below that the primary rewrites them into BEGIN queries) and asks for
 * ANNOTATE_ROWS events with dump flag 2 (without it the primary leaves them out, a hole in the
 * copied file). A GTID start is {@code @slave_connect_state} and a COM_BINLOG_DUMP without a file.
 * Offsets stay below 4 GiB. Semi-sync is built in ({@code rpl_semi_sync_master_enabled},
 * {@code @rpl_semi_sync_slave}). Stateless.
 */
final class MariadbPrimaryFlavor implements PrimaryFlavor {
  private static final Logger LOG = LoggerFactory.getLogger(MariadbPrimaryFlavor.class);

  /**
   * MARIA_SLAVE_CAPABILITY_MINE of MariaDB 10.x: GTID events, holes tolerated, checkpoints,
   * annotations.
   */
  static final int SLAVE_CAPABILITY = 4;

  @Override
  public GtidFlavor gtidFlavor() {
    return GtidFlavor.MARIADB;
  }

  @Override
  public String binlogStatusStatement() {
    return "SHOW MASTER STATUS";
  }

  @Override
  public void prepareSession(PrimaryConnection connection, UpstreamConfig config)
      throws IOException {
    connection.execute("SET @mariadb_slave_capability = " + SLAVE_CAPABILITY);
  }

  @Override
  public void requestDump(PrimaryConnection connection, Position start, long serverId)
      throws IOException {
    if (start.offset() > 0xFFFFFFFFL) {
      throw new FatalUpstreamException(
          "cannot continue at "
              + start
              + ": MariaDB's COM_BINLOG_DUMP carries a 4-byte"
              + " offset");
    }
    connection.send(
        new BinlogDumpCommand(
                start.offset(),
                BinlogDumpCommand.BINLOG_SEND_ANNOTATE_ROWS_EVENT,
                serverId,
                start.file())
            .encode());
  }

  @Override
  public void requestGtidDump(PrimaryConnection connection, String gtids, long serverId)
      throws IOException {
    String position;
    try {
      position = gtids.isBlank() ? "" : MariadbGtidSet.parsePosition(gtids).toPositionString();
    } catch (ProtocolException | IllegalArgumentException e) {
      throw new FatalUpstreamException(
          "the start GTID position '"
              + gtids
              + "' is not a MariaDB GTID position: "
              + e.getMessage(),
          e);
    }
    connection.execute("SET @slave_connect_state = '" + position + "'");
    connection.send(
        new BinlogDumpCommand(4, BinlogDumpCommand.BINLOG_SEND_ANNOTATE_ROWS_EVENT, serverId, "")
            .encode());
  }

  /** As MariaDB's replica does ({@code Repl_semi_sync_slave::request_transmit}). */
  @Override
  public boolean requestSemiSync(PrimaryConnection connection) throws IOException {
    ResultRows rows = connection.query("SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled'");
    if (rows.isEmpty()) {
      return false;
    }
    connection.execute("SET @rpl_semi_sync_slave = 1");
    LOG.info(
        "upstream {}: semi-sync requested (@rpl_semi_sync_slave = 1); the primary has rpl_semi_sync_master_enabled"
            + " = {}",
        connection.address(),
        rows.value(0, "Value"));
    return true;
  }

  @Override
  public GtidSet executedGtids(PrimaryConnection connection) throws IOException {
    String text = connection.query("SELECT @@global.gtid_binlog_state").rows().get(0).get(0);
    try {
      return MariadbGtidSet.parse(text == null ? "" : text);
    } catch (ProtocolException | IllegalArgumentException e) {
      throw new ProtocolException(
          "primary "
              + connection.address()
              + " reports @@gtid_binlog_state '"
              + text
              + "', which is not a GTID state: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * {@code @slave_connect_state} is the store's GTID position; strict mode makes the primary check
   * that each domain's GTID is in its binlog (else error 1236 instead of a silent jump), as a
   * MariaDB replica asks.
   */
  @Override
  public void requestResumeDump(PrimaryConnection connection, GtidSet executed, long serverId)
      throws IOException {
    String position = ((MariadbGtidSet) executed).toPositionString();
    connection.execute(
        "SET @slave_connect_state = '"
            + position
            + "', @slave_gtid_strict_mode = 1,"
            + " @slave_gtid_ignore_duplicates = 0");
    connection.send(
        new BinlogDumpCommand(4, BinlogDumpCommand.BINLOG_SEND_ANNOTATE_ROWS_EVENT, serverId, "")
            .encode());
  }

  @Override
  public String missing(GtidSet executed, GtidSet stored) {
    MariadbGtidSet theirs = (MariadbGtidSet) executed;
    StringBuilder out = new StringBuilder();
    for (MariadbGtid g : ((MariadbGtidSet) stored).gtids()) {
      if (!theirs.contains(g)) {
        out.append(out.length() == 0 ? "" : ",").append(g);
      }
    }
    return out.toString();
  }

  @Override
  public EventType gtidHeaderType() {
    return EventType.GTID_LIST;
  }

  @Override
  public int gtidHeaderPostHeaderLength() {
    return GtidListEvent.POST_HEADER_LENGTH;
  }

  /**
   * u32 count (flags 0) and per entry u32 domain, u32 server_id, u64 seq_no: the whole binlog
   * state.
   */
  @Override
  public byte[] gtidHeaderBody(GtidSet gtids) {
    List<MariadbGtid> entries = ((MariadbGtidSet) gtids).gtids();
    ByteWriter out = new ByteWriter(4 + 16 * entries.size()).u32(entries.size());
    for (MariadbGtid g : entries) {
      out.u32(g.domainId()).u32(g.serverId()).u64(g.seqNo());
    }
    return out.toByteArray();
  }
}
