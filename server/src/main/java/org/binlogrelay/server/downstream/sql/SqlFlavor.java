package org.binlogrelay.server.downstream.sql;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.query.TableName;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.server.downstream.account.Privilege;

/**
 * Everything the downstream server answers differently as a MySQL or as a MariaDB server: its
 * variables, the statement spellings its grammar still has, the shape of the replication SHOW
 * statements, the privilege names in errors, and how a replica asks for GTID positioning. One class
 * per flavour ({@link MysqlSqlFlavor}, {@link MariadbSqlFlavor}), chosen once from the upstream's
 * flavour, so no code asks "is this MariaDB?".
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface SqlFlavor {

  /**
   * The column {@code SHOW BINARY LOGS} adds with an archive: {@code local}, {@code local,archive}
   * or {@code archive} (binlog-relay's own; MySQL and MariaDB have no such column).
   */
  String TIER_COLUMN = "Tier";

  /** The {@link #TIER_COLUMN}'s declared length, in bytes. */
  int TIER_COLUMN_LENGTH = 52;

  /** The flavour a relay of a {@code flavor} primary acts as; the one way to choose it. */
  static SqlFlavor of(GtidFlavor flavor) {
    return switch (flavor) {
      case MYSQL -> MysqlSqlFlavor.INSTANCE;
      case MARIADB -> MariadbSqlFlavor.INSTANCE;
    };
  }

  GtidFlavor flavor();

  /**
   * How the server names itself in ER_PARSE_ERROR: "MySQL" or "MariaDB" (its GTID flavour's name).
   */
  default String productName() {
    return flavor().productName();
  }

  /**
   * The version number announced when nothing is known of the upstream ({@code AnnouncedVersion}).
   */
  String defaultVersionNumber();

  /** What follows the version number in this server's version string: "" or "-MariaDB". */
  String versionTag();

  /**
   * The version string of the handshake greeting for {@code version}, the announced one ({@code
   * VERSION()} and {@code @@version} keep it as is): a MariaDB 10.x server puts "5.5.5-" before it.
   */
  String greetingVersion(String version);

  /** Whether <code>/*M!...*&#47;</code> comments are executed. */
  boolean executesMariadbComments();

  /** The collation id of text results and the greeting. */
  int collationId();

  /** The default character set name ({@code utf8mb4}). */
  String characterSet();

  /** The default collation name for {@link #characterSet()}. */
  String collation();

  /** The auth plugin named in the greeting (the server's default_authentication_plugin). */
  String defaultAuthPlugin();

  /**
   * The variables such a server has, with the relay's values; the GTID variables read {@code
   * binlogs} live, the binlog format variables the primary's values from {@code source} ({@link
   * BinlogVariables}).
   */
  List<SystemVariable> variables(
      ServerIdentity identity, BinlogListing binlogs, ReplicationSource source);

  /**
   * {@link #variables(ServerIdentity, BinlogListing, ReplicationSource)} of a relay without a
   * primary.
   */
  default List<SystemVariable> variables(ServerIdentity identity, BinlogListing binlogs) {
    return variables(identity, binlogs, ReplicationSource.NONE);
  }

  /**
   * Whether this server's grammar has a SHOW spelling such as "MASTER STATUS": -1 if it does, else
   * the index of the word its parser fails at (MySQL fails "BINLOG STATUS" at STATUS, having SHOW
   * BINLOG EVENTS), which its ER_PARSE_ERROR quotes from.
   */
  int rejectedWordIndex(String showSpelling);

  /**
   * {@link #rejectedWordIndex(String)} for a server announcing {@code versionNumber} (80036 for
   * 8.0.36): MySQL before 8.4 still has the MASTER and SLAVE spellings.
   */
  default int rejectedWordIndex(String showSpelling, int versionNumber) {
    return rejectedWordIndex(showSpelling);
  }

  TextResultSet binaryLogs(Columns columns, List<BinlogListing.BinlogFile> files);

  TextResultSet binaryLogStatus(
      Columns columns, Optional<BinlogListing.Position> position, String executedGtids);

  TextResultSet replicas(Columns columns, List<ReplicaInfo> replicas);

  /** The privileges named when SHOW BINARY LOGS / SHOW ... STATUS is refused. */
  String binlogMonitorPrivileges();

  /** The privilege SHOW REPLICAS / SHOW SLAVE HOSTS needs. */
  Privilege replicaListPrivilege();

  /** The privileges named when SHOW REPLICAS is refused. */
  String replicaListPrivileges();

  /** The privileges named when SET GLOBAL is refused. */
  String setGlobalPrivileges();

  /** Whether {@code binlog_gtid_pos(file, pos)} exists (MariaDB). */
  boolean hasBinlogGtidPos();

  /**
   * The GTID position a replica asked for outside the dump packet: MariaDB's
   * {@code @slave_connect_state}; empty for MySQL (whose COM_BINLOG_DUMP_GTID carries it) or when
   * unset. IllegalArgumentException with the server's wording if the state is malformed.
   */
  Optional<GtidSet> connectState(SessionVariables session);

  /** Whether MySQL's {@code GTID_SUBTRACT()} and {@code GTID_SUBSET()} exist. */
  boolean hasGtidSetFunctions();

  /**
   * The error for a function the server does not have, with {@code database} the current one (null
   * if none).
   */
  ErrPacket unknownFunction(String name, String database);

  /**
   * How ER_BAD_FIELD_ERROR (1054) names the clause: 'field list' / 'where clause', or MariaDB's
   * 'SELECT' / 'WHERE'.
   */
  String columnClause(boolean where);

  /**
   * The statement counters of SHOW STATUS, in this server's names ({@code Com_show_replica_status}
   * ...).
   */
  List<String> statementCounters();

  /**
   * This server's name for the counter MySQL calls {@code mysqlName} (MariaDB: {@code
   * Com_show_slave_status}).
   */
  String counterName(String mysqlName);

  /**
   * The replication rows of SHOW STATUS: semi-sync, and MariaDB's {@code Slave_running}, {@code
   * Slaves_*}.
   */
  Map<String, String> replicationStatus(
      Optional<SourceStatus> source, int registeredReplicas, long dumps);

  /**
   * SHOW REPLICA STATUS; {@code all} for MariaDB's SHOW ALL SLAVES STATUS; {@code slaveSpelling}
   * for SHOW SLAVE STATUS, which MySQL before 8.4 answers with the old column names (Master_Host,
   * Slave_IO_Running ...).
   */
  ResultTable replicaStatus(
      Columns columns, Optional<SourceStatus> source, boolean all, boolean slaveSpelling);

  /** The error for SHOW REPLICA STATUS of a channel or connection name that does not exist. */
  ErrPacket noSuchChannel(String name);

  /** SHOW [FULL] PROCESSLIST. */
  ResultTable processList(Columns columns, List<ProcessInfo> processes, boolean full);

  /**
   * The tables of {@code performance_schema} / {@code information_schema} this server has and the
   * relay fills ({@code information_schema.PROCESSLIST}, MySQL's {@code
   * performance_schema.replication_connection_*}); empty for any other table.
   */
  Optional<ResultTable> systemTable(
      TableName table, Columns columns, List<ProcessInfo> processes, Optional<SourceStatus> source);

  /**
   * The privileges named when SHOW REPLICA STATUS is refused (it needs REPLICATION CLIENT here).
   */
  String replicaMonitorPrivileges();

  /** The privilege SHOW BINLOG EVENTS needs, and the names its refusal gives. */
  Privilege binlogEventsPrivilege();

  String binlogEventsPrivileges();

  /** The {@code sql_mode} names this server knows, in its order ({@link SqlModes}). */
  List<String> sqlModes();
}
