package org.binlogrelay.server.upstream;

import java.io.IOException;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.Position;

/**
 * A MySQL primary (8.0 and later). The dump is COM_BINLOG_DUMP, or COM_BINLOG_DUMP_GTID through the position
 * with an empty GTID set for offsets past 4 GiB (the older command has a 4-byte offset). {@code @replica_uuid}
 * (and {@code @slave_uuid} for servers before 8.0.26) identifies the relay, so that the primary ends the dump
 * thread of a previous connection when it reconnects. Stateless.
 */
final class MysqlPrimary implements PrimaryFlavor {
  private final String version;

  MysqlPrimary(String version) {
    this.version = version;
  }

  @Override
  public GtidFlavor gtidFlavor() {
    return GtidFlavor.MYSQL;
  }

  /** {@code SHOW BINARY LOG STATUS} from 8.2 on; {@code SHOW MASTER STATUS} before (removed in 8.4). */
  @Override
  public String binlogStatusStatement() {
    return atLeast(8, 2) ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS";
  }

  @Override
  public void prepareSession(PrimaryConnection connection, UpstreamConfig config) throws IOException {
    String uuid = config.replicaUuid().toString();
    connection.execute("SET @replica_uuid = '" + uuid + "', @slave_uuid = '" + uuid + "'");
  }

  @Override
  public void requestDump(PrimaryConnection connection, Position start, long serverId) throws IOException {
    if (start.offset() <= 0xFFFFFFFFL) {
      connection.send(ReplicationCommands.binlogDump(start.file(), start.offset(), 0, serverId));
    } else {
      connection.send(ReplicationCommands.binlogDumpGtid(ReplicationCommands.BINLOG_THROUGH_POSITION, serverId,
          start.file(), start.offset(), MysqlGtidSet.empty().encode()));
    }
  }

  @Override
  public void requestGtidDump(PrimaryConnection connection, String gtids, long serverId) throws IOException {
    MysqlGtidSet set;
    try {
      set = MysqlGtidSet.parse(gtids);
    } catch (ProtocolException | IllegalArgumentException e) {
      throw new FatalUpstreamException("the start GTID set '" + gtids + "' is not a MySQL GTID set: "
          + e.getMessage(), e);
    }
    connection.send(ReplicationCommands.binlogDumpGtid(ReplicationCommands.BINLOG_THROUGH_GTID, serverId, "", 4,
        set.encode()));
  }

  private boolean atLeast(int major, int minor) {
    String[] parts = version.split("[.-]");
    try {
      int ma = Integer.parseInt(parts[0]);
      int mi = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
      return ma > major || (ma == major && mi >= minor);
    } catch (NumberFormatException e) {
      return true; // an unparsable version is a new one
    }
  }
}
