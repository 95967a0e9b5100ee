package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.query.TableName;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.server.downstream.account.Privilege;

/**
 * The relay as a MySQL 8.4 / 9.x server: {@code caching_sha2_password} by default,
 * utf8mb4_0900_ai_ci, {@code gtid_mode}, {@code server_uuid}, the 8.4 grammar (no SHOW MASTER
 * STATUS, SHOW SLAVE HOSTS, SHOW MASTER LOGS) and the column shapes MySQL 9.7 sends (checked
 * against captured transcripts). Stateless.
 */
public final class MysqlSqlFlavor implements SqlFlavor {
  public static final MysqlSqlFlavor INSTANCE = new MysqlSqlFlavor();
  private static final Set<String> SPELLINGS =
      Set.of("BINARY LOGS", "BINARY LOG STATUS", "REPLICAS", "REPLICA STATUS");
  private static final List<String> COUNTERS =
      List.of(
          "Com_begin",
          "Com_change_db",
          "Com_commit",
          "Com_kill",
          "Com_rollback",
          "Com_select",
          "Com_set_option",
          "Com_show_binary_log_status",
          "Com_show_binlog_events",
          "Com_show_binlogs",
          "Com_show_create_table",
          "Com_show_databases",
          "Com_show_fields",
          "Com_show_processlist",
          "Com_show_replica_status",
          "Com_show_replicas",
          "Com_show_status",
          "Com_show_tables",
          "Com_show_variables",
          "Com_show_warnings");

  /** The isolation levels in MySQL's order (SET transaction_isolation = 0..3). */
  static final String[] ISOLATION_LEVELS = {
    "READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"
  };

  private MysqlSqlFlavor() {}

  @Override
  public GtidFlavor flavor() {
    return GtidFlavor.MYSQL;
  }

  @Override
  public String defaultVersionNumber() {
    return "8.4.0";
  }

  @Override
  public String versionTag() {
    return "";
  }

  @Override
  public String greetingVersion(String version) {
    return version;
  }

  @Override
  public boolean executesMariadbComments() {
    return false;
  }

  @Override
  public int collationId() {
    return 255;
  }

  @Override
  public String characterSet() {
    return "utf8mb4";
  }

  @Override
  public String collation() {
    return "utf8mb4_0900_ai_ci";
  }

  @Override
  public String defaultAuthPlugin() {
    return "caching_sha2_password";
  }

  @Override
  public List<SystemVariable> variables(
      ServerIdentity id, BinlogListing binlogs, ReplicationSource source) {
    List<SystemVariable> v = new ArrayList<>(CommonVariables.of(id, this));
    v.addAll(BinlogVariables.mysql(source));
    v.add(SystemVariable.session("lock_wait_timeout", VariableType.UNSIGNED, "31536000"));
    v.add(
        SystemVariable.session(
            "session_track_system_variables",
            VariableType.STRING,
            "time_zone,autocommit,character_set_client,character_set_results,character_set_connection"));
    v.add(
        SystemVariable.session("session_track_gtids", VariableType.STRING, "OFF")
            .withAllowed("OFF", "OWN_GTID", "ALL_GTIDS"));
    v.add(SystemVariable.session("transaction_read_only", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.session("max_execution_time", VariableType.UNSIGNED, "0"));
    v.add(SystemVariable.session("group_concat_max_len", VariableType.UNSIGNED, "1024"));
    v.add(SystemVariable.session("sql_require_primary_key", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.session("sort_buffer_size", VariableType.UNSIGNED, "262144"));
    v.add(SystemVariable.global("replica_net_timeout", VariableType.UNSIGNED, "60"));
    v.add(SystemVariable.global("server_uuid", VariableType.STRING, id.serverUuid()));
    v.add(SystemVariable.global("gtid_mode", VariableType.STRING, "ON"));
    v.add(SystemVariable.global("enforce_gtid_consistency", VariableType.STRING, "ON"));
    v.add(SystemVariable.live("gtid_executed", VariableType.STRING, binlogs::executedGtids));
    v.add(SystemVariable.live("gtid_purged", VariableType.STRING, binlogs::purgedGtids));
    v.add(SystemVariable.global("log_replica_updates", VariableType.BOOLEAN, "1"));
    v.add(SystemVariable.global("rpl_semi_sync_source_enabled", VariableType.BOOLEAN, "0"));
    v.add(
        SystemVariable.session("transaction_isolation", VariableType.STRING, "REPEATABLE-READ")
            .withAllowed(ISOLATION_LEVELS));
    v.add(
        SystemVariable.session(
            "sql_mode",
            VariableType.STRING,
            "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,"
                + "NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"));
    v.add(
        SystemVariable.global(
            "default_authentication_plugin", VariableType.STRING, defaultAuthPlugin()));
    return v;
  }

  /** The spellings MySQL 8.4 removed, which 8.0 (announced when the primary is 8.0) still has. */
  private static final Set<String> BEFORE_84 =
      Set.of("MASTER STATUS", "MASTER LOGS", "SLAVE HOSTS", "SLAVE STATUS");

  private static final int MYSQL_84 = 80400;

  @Override
  public int rejectedWordIndex(String showSpelling, int versionNumber) {
    if (versionNumber < MYSQL_84 && BEFORE_84.contains(showSpelling)) {
      return -1;
    }
    return rejectedWordIndex(showSpelling);
  }

  @Override
  public int rejectedWordIndex(String showSpelling) {
    if (SPELLINGS.contains(showSpelling)) {
      return -1;
    }
    return showSpelling.equals("BINLOG STATUS") ? 1 : 0;
  }

  @Override
  public TextResultSet binaryLogs(Columns c, List<BinlogListing.BinlogFile> files) {
    boolean tiers = files.stream().anyMatch(f -> f.tier() != null);
    List<List<String>> rows = new ArrayList<>();
    for (BinlogListing.BinlogFile f : files) {
      rows.add(
          tiers
              ? List.of(f.name(), Long.toString(f.size()), "No", String.valueOf(f.tier()))
              : List.of(f.name(), Long.toString(f.size()), "No"));
    }
    List<ColumnDefinition> columns =
        new ArrayList<>(
            List.of(
                c.text("Log_name", 1020, true),
                c.number("File_size", ColumnType.LONGLONG, 21),
                c.text("Encrypted", 12, true)));
    if (tiers) {
      columns.add(c.text(TIER_COLUMN, TIER_COLUMN_LENGTH, true));
    }
    return new TextResultSet(columns, rows);
  }

  @Override
  public TextResultSet binaryLogStatus(
      Columns c, Optional<BinlogListing.Position> position, String executedGtids) {
    List<List<String>> rows =
        position
            .map(p -> List.of(List.of(p.file(), Long.toString(p.offset()), "", "", executedGtids)))
            .orElse(List.of());
    return new TextResultSet(
        List.of(
            c.text("File", 2048, true),
            c.number("Position", ColumnType.LONGLONG, 21),
            c.text("Binlog_Do_DB", 1020, true),
            c.text("Binlog_Ignore_DB", 1020, true),
            c.text("Executed_Gtid_Set", 160, true)),
        rows);
  }

  @Override
  public TextResultSet replicas(Columns c, List<ReplicaInfo> replicas) {
    List<List<String>> rows = new ArrayList<>();
    for (ReplicaInfo r : replicas) {
      rows.add(
          List.of(
              Long.toString(r.serverId()),
              r.host(),
              Integer.toString(r.port()),
              Long.toString(r.sourceId()),
              r.uuid()));
    }
    return new TextResultSet(
        List.of(
            c.number("Server_Id", ColumnType.LONG, 11),
            c.text("Host", 1020, true),
            c.number("Port", ColumnType.LONG, 8),
            c.number("Source_Id", ColumnType.LONG, 11),
            c.text("Replica_UUID", 144, true)),
        rows);
  }

  @Override
  public String binlogMonitorPrivileges() {
    return "SUPER, REPLICATION CLIENT";
  }

  @Override
  public Privilege replicaListPrivilege() {
    return Privilege.REPLICATION_SLAVE;
  }

  @Override
  public String replicaListPrivileges() {
    return "REPLICATION SLAVE";
  }

  @Override
  public String setGlobalPrivileges() {
    return "SUPER or SYSTEM_VARIABLES_ADMIN";
  }

  @Override
  public boolean hasBinlogGtidPos() {
    return false;
  }

  @Override
  public Optional<GtidSet> connectState(SessionVariables session) {
    return Optional.empty();
  }

  @Override
  public boolean hasGtidSetFunctions() {
    return true;
  }

  @Override
  public ErrPacket unknownFunction(String name, String database) {
    return database == null
        ? ErrorMessages.noDatabaseSelected()
        : ErrorMessages.functionDoesNotExist(database + "." + name);
  }

  @Override
  public String columnClause(boolean where) {
    return where ? "where clause" : "field list";
  }

  @Override
  public List<String> statementCounters() {
    return COUNTERS;
  }

  @Override
  public String counterName(String mysqlName) {
    return mysqlName;
  }

  /**
   * MySQL 9.7 lists semi-sync status only with the plugins loaded; the relay reports both sides.
   */
  @Override
  public Map<String, String> replicationStatus(
      Optional<SourceStatus> source, int registeredReplicas, long dumps) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(
        "Rpl_semi_sync_replica_status",
        source
            .map(s -> s.io() == SourceStatus.IoState.STREAMING && s.semiSync() ? "ON" : "OFF")
            .orElse("OFF"));
    m.put("Rpl_semi_sync_source_status", "OFF");
    m.put("Rpl_semi_sync_source_clients", "0");
    return m;
  }

  @Override
  public ResultTable replicaStatus(
      Columns columns, Optional<SourceStatus> source, boolean all, boolean slaveSpelling) {
    ResultTable table = ReplicaStatusTables.mysql(columns, source);
    return slaveSpelling ? ReplicaStatusTables.oldNames(table) : table;
  }

  @Override
  public ErrPacket noSuchChannel(String name) {
    return ErrorMessages.noSuchChannel(name);
  }

  @Override
  public ResultTable processList(Columns columns, List<ProcessInfo> processes, boolean full) {
    return ProcessListTables.show(columns, processes, full, false);
  }

  @Override
  public Optional<ResultTable> systemTable(
      TableName table,
      Columns columns,
      List<ProcessInfo> processes,
      Optional<SourceStatus> source) {
    if (table.is("information_schema", "PROCESSLIST")) {
      return Optional.of(ProcessListTables.table(columns, processes, false));
    }
    if (table.is("performance_schema", ReplicationTables.CONNECTION_STATUS)) {
      return Optional.of(ReplicationTables.connectionStatus(columns, source));
    }
    if (table.is("performance_schema", ReplicationTables.CONNECTION_CONFIGURATION)) {
      return Optional.of(ReplicationTables.connectionConfiguration(columns, source));
    }
    return Optional.empty();
  }

  @Override
  public String replicaMonitorPrivileges() {
    return "SUPER, REPLICATION CLIENT";
  }

  @Override
  public Privilege binlogEventsPrivilege() {
    return Privilege.REPLICATION_SLAVE;
  }

  @Override
  public String binlogEventsPrivileges() {
    return "REPLICATION SLAVE";
  }

  @Override
  public List<String> sqlModes() {
    return SqlModes.MYSQL;
  }
}
