package org.binlogrelay.bench.flavor;

import java.io.IOException;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.stream.BinlogPosition;

/**
 * What differs between MySQL and MariaDB sources (and a relay in front of either, which answers as
 * its primary does): the session variables and dump command of a replica, the binlog status
 * statement, the executed-GTID variables and the replica statements. One class per flavour, chosen
 * once from the handshake's version string.
 */
public interface SourceFlavor {

  /** MariaDB if the version says so (e.g. {@code 5.5.5-10.11.19-MariaDB}), else MySQL. */
  static SourceFlavor of(String serverVersion) {
    return serverVersion.contains("MariaDB") ? new MariadbSourceFlavor() : new MysqlSourceFlavor();
  }

  String name();

  /**
   * Sets the session up as a replica would before its dump: checksum, heartbeat period, identity.
   *
   * @param checksum the source's {@code @@global.binlog_checksum} ({@code CRC32} or {@code NONE})
   * @param heartbeatMillis the heartbeat period asked for; 0 for none
   */
  void prepareDump(
      SourceConnection connection, String checksum, long heartbeatMillis, long serverId)
      throws IOException;

  /** Sends the dump command from a file position. */
  void dumpFrom(
      SourceConnection connection, BinlogPosition start, long serverId, boolean nonBlocking)
      throws IOException;

  /** Sends the dump command for what comes after a GTID set (MySQL) or GTID position (MariaDB). */
  void dumpAfterGtids(SourceConnection connection, String gtids, long serverId, boolean nonBlocking)
      throws IOException;

  /** The statement that shows the source's current file, position and GTIDs. */
  String binlogStatusStatement();

  /**
   * The source's executed GTIDs as text ({@code @@gtid_executed}, MariaDB
   * {@code @@gtid_binlog_pos}).
   */
  String executedGtids(SourceConnection connection) throws IOException;

  /**
   * What a replica has applied of its source's transactions ({@code @@gtid_executed}, MariaDB
   * {@code @@gtid_slave_pos}).
   */
  String replicaExecuted(SourceConnection replica) throws IOException;

  /**
   * How many transactions {@code later} has that {@code earlier} has not (GTID sets as {@link
   * #executedGtids} and {@link #replicaExecuted} print them); never negative.
   */
  long transactionsBetween(String earlier, String later);

  String stopReplicaStatement();

  String startReplicaStatement();

  /** Reads the source's head: the end of its current binlog file. */
  default BinlogPosition head(SourceConnection connection) throws IOException {
    var rows = connection.query(binlogStatusStatement());
    if (rows.isEmpty() || rows.get(0).size() < 2 || rows.get(0).get(0) == null) {
      throw new IOException(
          connection.address()
              + " answered '"
              + binlogStatusStatement()
              + "' with no row: is"
              + " binary logging on?");
    }
    return new BinlogPosition(rows.get(0).get(0), Long.parseLong(rows.get(0).get(1)));
  }
}
