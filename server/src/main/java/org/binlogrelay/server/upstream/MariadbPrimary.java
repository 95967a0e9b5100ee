package org.binlogrelay.server.upstream;

import java.io.IOException;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.storage.Position;

/**
 * A MariaDB primary (10.x, 11.x). A replica announces {@code @mariadb_slave_capability=4} (it understands GTID
 * events; below that the primary rewrites them into BEGIN queries) and asks for ANNOTATE_ROWS events with dump
 * flag 2 (without it the primary leaves them out, a hole in the copied file). A GTID start is
 * {@code @slave_connect_state} and a COM_BINLOG_DUMP without a file. Offsets stay below 4 GiB. Stateless.
 */
final class MariadbPrimary implements PrimaryFlavor {
  /** MARIA_SLAVE_CAPABILITY_MINE of MariaDB 10.x: GTID events, holes tolerated, checkpoints, annotations. */
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
  public void prepareSession(PrimaryConnection connection, UpstreamConfig config) throws IOException {
    connection.execute("SET @mariadb_slave_capability = " + SLAVE_CAPABILITY);
  }

  @Override
  public void requestDump(PrimaryConnection connection, Position start, long serverId) throws IOException {
    if (start.offset() > 0xFFFFFFFFL) {
      throw new FatalUpstreamException("cannot continue at " + start + ": MariaDB's COM_BINLOG_DUMP carries a 4-byte"
          + " offset");
    }
    connection.send(ReplicationCommands.binlogDump(start.file(), start.offset(),
        ReplicationCommands.BINLOG_SEND_ANNOTATE_ROWS_EVENT, serverId));
  }

  @Override
  public void requestGtidDump(PrimaryConnection connection, String gtids, long serverId) throws IOException {
    String position;
    try {
      position = gtids.isBlank() ? "" : MariadbGtidSet.parsePosition(gtids).toPositionString();
    } catch (ProtocolException | IllegalArgumentException e) {
      throw new FatalUpstreamException("the start GTID position '" + gtids + "' is not a MariaDB GTID position: "
          + e.getMessage(), e);
    }
    connection.execute("SET @slave_connect_state = '" + position + "'");
    connection.send(ReplicationCommands.binlogDump("", 4, ReplicationCommands.BINLOG_SEND_ANNOTATE_ROWS_EVENT,
        serverId));
  }
}
