package org.binlogrelay.server.upstream;

import java.io.IOException;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.protocol.replication.BinlogDumpCommand;
import org.binlogrelay.protocol.replication.BinlogDumpGtidCommand;
import org.binlogrelay.storage.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MySQL primary (8.0 and later). The dump is COM_BINLOG_DUMP, or COM_BINLOG_DUMP_GTID through the
 * position with an empty GTID set for offsets past 4 GiB (the older command has a 4-byte offset).
 * {@code @replica_uuid} (and {@code @slave_uuid} for servers before 8.0.26) identifies the relay,
 * so that the primary ends the dump thread of a previous connection when it reconnects. Semi-sync:
 * the source plugin or component of 8.0.26+ ({@code rpl_semi_sync_source_enabled},
 * {@code @rpl_semi_sync_replica}), else the older master plugin ({@code
 * rpl_semi_sync_master_enabled}, {@code @rpl_semi_sync_slave}). Stateless.
 */
final class MysqlPrimaryFlavor implements PrimaryFlavor {
  private static final Logger LOG = LoggerFactory.getLogger(MysqlPrimaryFlavor.class);

  /** PREVIOUS_GTIDS has no post-header in MySQL's FORMAT_DESCRIPTION. */
  private static final int PREVIOUS_GTIDS_POST_HEADER = 0;

  private final String version;

  MysqlPrimaryFlavor(String version) {
    this.version = version;
  }

  @Override
  public GtidFlavor gtidFlavor() {
    return GtidFlavor.MYSQL;
  }

  /**
   * {@code SHOW BINARY LOG STATUS} from 8.2 on; {@code SHOW MASTER STATUS} before (removed in 8.4).
   */
  @Override
  public String binlogStatusStatement() {
    return atLeast(8, 2) ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS";
  }

  @Override
  public void prepareSession(PrimaryConnection connection, UpstreamConfig config)
      throws IOException {
    String uuid = config.replicaUuid().toString();
    connection.execute("SET @replica_uuid = '" + uuid + "', @slave_uuid = '" + uuid + "'");
  }

  @Override
  public void requestDump(PrimaryConnection connection, Position start, long serverId)
      throws IOException {
    if (start.offset() <= 0xFFFFFFFFL) {
      connection.send(new BinlogDumpCommand(start.offset(), 0, serverId, start.file()).encode());
    } else {
      connection.send(
          new BinlogDumpGtidCommand(
                  BinlogDumpGtidCommand.BINLOG_THROUGH_POSITION,
                  serverId,
                  start.file(),
                  start.offset(),
                  MysqlGtidSet.empty())
              .encode());
    }
  }

  @Override
  public void requestGtidDump(PrimaryConnection connection, String gtids, long serverId)
      throws IOException {
    MysqlGtidSet set;
    try {
      set = MysqlGtidSet.parse(gtids);
    } catch (ProtocolException | IllegalArgumentException e) {
      throw new FatalUpstreamException(
          "the start GTID set '" + gtids + "' is not a MySQL GTID set: " + e.getMessage(), e);
    }
    connection.send(
        new BinlogDumpGtidCommand(BinlogDumpGtidCommand.BINLOG_THROUGH_GTID, serverId, "", 4, set)
            .encode());
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

  @Override
  public boolean requestSemiSync(PrimaryConnection connection) throws IOException {
    if (semiSync(connection, "rpl_semi_sync_source_enabled", "rpl_semi_sync_replica")) {
      return true;
    }
    return semiSync(connection, "rpl_semi_sync_master_enabled", "rpl_semi_sync_slave");
  }

  /** Asks with one generation of the plugin's names; false if the primary lacks that variable. */
  private static boolean semiSync(
      PrimaryConnection connection, String enabledVariable, String sessionVariable)
      throws IOException {
    String enabled;
    try {
      enabled = connection.query("SELECT @@global." + enabledVariable).rows().get(0).get(0);
    } catch (PrimaryErrorException e) {
      if (e.code() == PrimaryErrorException.UNKNOWN_SYSTEM_VARIABLE) {
        return false;
      }
      throw e;
    }
    connection.execute("SET @" + sessionVariable + " = 1");
    LOG.info(
        "upstream {}: semi-sync requested (@{} = 1); the primary has {} = {}",
        connection.address(),
        sessionVariable,
        enabledVariable,
        enabled);
    return true;
  }

  @Override
  public GtidSet executedGtids(PrimaryConnection connection) throws IOException {
    String text = connection.query("SELECT @@global.gtid_executed").rows().get(0).get(0);
    try {
      return MysqlGtidSet.parse(text == null ? "" : text);
    } catch (ProtocolException | IllegalArgumentException e) {
      throw new ProtocolException(
          "primary "
              + connection.address()
              + " reports @@gtid_executed '"
              + text
              + "', which is not a GTID set: "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public void requestResumeDump(PrimaryConnection connection, GtidSet executed, long serverId)
      throws IOException {
    connection.send(
        new BinlogDumpGtidCommand(
                BinlogDumpGtidCommand.BINLOG_THROUGH_GTID, serverId, "", 4, (MysqlGtidSet) executed)
            .encode());
  }

  @Override
  public String missing(GtidSet executed, GtidSet stored) {
    return ((MysqlGtidSet) stored).subtract((MysqlGtidSet) executed).toString();
  }

  @Override
  public EventType gtidHeaderType() {
    return EventType.PREVIOUS_GTIDS;
  }

  @Override
  public int gtidHeaderPostHeaderLength() {
    return PREVIOUS_GTIDS_POST_HEADER;
  }

  @Override
  public byte[] gtidHeaderBody(GtidSet gtids) {
    return ((MysqlGtidSet) gtids).encode();
  }
}
