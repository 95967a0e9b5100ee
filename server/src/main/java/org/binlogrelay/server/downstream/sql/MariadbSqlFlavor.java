package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.query.ColumnDefinition;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.query.TableName;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.server.downstream.account.Privilege;

/**
 * The relay as a MariaDB 10.11 server: {@code mysql_native_password} by default,
 * utf8mb4_general_ci, {@code gtid_domain_id} and the {@code gtid_*_pos} variables, the MASTER /
 * SLAVE spellings, and GTID positioning through {@code SET @slave_connect_state} before a plain
 * COM_BINLOG_DUMP. Column shapes follow captured MariaDB 10.11 transcripts. Stateless.
 */
public final class MariadbSqlFlavor implements SqlFlavor {
  public static final MariadbSqlFlavor INSTANCE = new MariadbSqlFlavor();
  private static final Set<String> SPELLINGS =
      Set.of(
          "BINARY LOGS",
          "MASTER LOGS",
          "MASTER STATUS",
          "BINLOG STATUS",
          "SLAVE HOSTS",
          "REPLICA HOSTS",
          "SLAVE STATUS",
          "REPLICA STATUS",
          "ALL SLAVES STATUS",
          "ALL REPLICAS STATUS");
  private static final List<String> COUNTERS =
      List.of(
          "Com_begin",
          "Com_change_db",
          "Com_commit",
          "Com_kill",
          "Com_rollback",
          "Com_select",
          "Com_set_option",
          "Com_show_binlog_events",
          "Com_show_binlog_status",
          "Com_show_binlogs",
          "Com_show_create_table",
          "Com_show_databases",
          "Com_show_fields",
          "Com_show_processlist",
          "Com_show_slave_hosts",
          "Com_show_slave_status",
          "Com_show_status",
          "Com_show_tables",
          "Com_show_variables",
          "Com_show_warnings");

  /** MariaDB 11.1 renamed tx_isolation and tx_read_only (keeping both). */
  private static final int TRANSACTION_VARIABLES_SINCE = 110100;

  /** What a MariaDB 10.x server's greeting puts before its version ({@link #greetingVersion}). */
  static final String REPLICATION_VERSION_PREFIX = "5.5.5-";

  private MariadbSqlFlavor() {}

  @Override
  public GtidFlavor flavor() {
    return GtidFlavor.MARIADB;
  }

  @Override
  public String defaultVersionNumber() {
    return "10.11.0";
  }

  @Override
  public String versionTag() {
    return "-MariaDB";
  }

  /**
   * MariaDB 10.x greets with {@code 5.5.5-10.11.6-MariaDB...} ({@code RPL_VERSION_HACK}: older
   * MySQL replicas read the version's first character as its major version, so "10" would read as
   * 1; MariaDB clients drop the prefix). MySQL clients rely on it: without it, MySQL Connector/J
   * reads 10.11 as newer than MySQL 8.0.3 and asks for {@code @@transaction_isolation}, which 10.11
   * does not have (1193). MariaDB 11.0 dropped the prefix (11.8.9 greets with {@code
   * 11.8.9-MariaDB-4 from Debian}, checked against the provisioned server). A version that already
   * has it, or that does not start with a version number, is left alone.
   */
  @Override
  public String greetingVersion(String version) {
    if (version.startsWith(REPLICATION_VERSION_PREFIX)) {
      return version;
    }
    int major = majorVersion(version);
    return major >= 10 && major < 11 ? REPLICATION_VERSION_PREFIX + version : version;
  }

  /** The leading number of {@code version}, or -1 if it does not start with one. */
  private static int majorVersion(String version) {
    int end = 0;
    while (end < version.length() && end < 4 && Character.isDigit(version.charAt(end))) {
      end++;
    }
    return end == 0 ? -1 : Integer.parseInt(version.substring(0, end));
  }

  @Override
  public boolean executesMariadbComments() {
    return true;
  }

  @Override
  public int collationId() {
    return 45;
  }

  @Override
  public String characterSet() {
    return "utf8mb4";
  }

  @Override
  public String collation() {
    return "utf8mb4_general_ci";
  }

  @Override
  public String defaultAuthPlugin() {
    return "mysql_native_password";
  }

  @Override
  public List<SystemVariable> variables(
      ServerIdentity id, BinlogListing binlogs, ReplicationSource source) {
    List<SystemVariable> v = new ArrayList<>(CommonVariables.of(id, this));
    v.addAll(BinlogVariables.mariadb(source));
    v.add(SystemVariable.session("lock_wait_timeout", VariableType.UNSIGNED, "86400"));
    v.add(
        SystemVariable.session(
            "session_track_system_variables",
            VariableType.STRING,
            "autocommit,character_set_client,character_set_connection,character_set_results,time_zone"));
    v.add(SystemVariable.session("tx_read_only", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.session("max_statement_time", VariableType.STRING, "0.000000"));
    v.add(SystemVariable.session("group_concat_max_len", VariableType.UNSIGNED, "1048576"));
    v.add(SystemVariable.session("sort_buffer_size", VariableType.UNSIGNED, "2097152"));
    v.add(
        SystemVariable.session("query_cache_type", VariableType.STRING, "OFF")
            .withAllowed("OFF", "ON", "DEMAND"));
    // MySQL Connector/J reads it at login from a server it takes for one before 8.0.3 (a 5.5.5-
    // greeting).
    v.add(SystemVariable.global("query_cache_size", VariableType.UNSIGNED, "1048576"));
    v.add(SystemVariable.global("have_openssl", VariableType.STRING, "YES"));
    if (id.versionNumber() >= TRANSACTION_VARIABLES_SINCE) {
      v.add(
          SystemVariable.session("transaction_isolation", VariableType.STRING, "REPEATABLE-READ")
              .withAllowed(MysqlSqlFlavor.ISOLATION_LEVELS));
      v.add(SystemVariable.session("transaction_read_only", VariableType.BOOLEAN, "0"));
    }
    // MariaDB gives server_id a session value (mysqlbinlog output sets it) that needs BINLOG REPLAY
    // to change.
    v.replaceAll(
        x ->
            x.name().equals("server_id")
                ? x.withPrivileges("SUPER, BINLOG REPLAY", "SUPER, REPLICATION MASTER ADMIN")
                : x);
    v.add(
        SystemVariable.global(
            "gtid_domain_id", VariableType.UNSIGNED, Long.toString(id.gtidDomainId())));
    v.add(SystemVariable.global("gtid_strict_mode", VariableType.BOOLEAN, "1"));
    v.add(SystemVariable.global("gtid_ignore_duplicates", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.live("gtid_binlog_pos", VariableType.STRING, binlogs::executedGtids));
    v.add(SystemVariable.live("gtid_current_pos", VariableType.STRING, binlogs::executedGtids));
    v.add(SystemVariable.live("gtid_binlog_state", VariableType.STRING, binlogs::binlogState));
    v.add(SystemVariable.global("gtid_slave_pos", VariableType.STRING, ""));
    v.add(SystemVariable.global("log_slave_updates", VariableType.BOOLEAN, "1"));
    v.add(SystemVariable.global("rpl_semi_sync_master_enabled", VariableType.BOOLEAN, "0"));
    v.add(
        SystemVariable.session("tx_isolation", VariableType.STRING, "REPEATABLE-READ")
            .withAllowed(MysqlSqlFlavor.ISOLATION_LEVELS));
    v.add(
        SystemVariable.session(
            "sql_mode",
            VariableType.STRING,
            "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"));
    return v;
  }

  @Override
  public int rejectedWordIndex(String showSpelling) {
    if (SPELLINGS.contains(showSpelling)) {
      return -1;
    }
    return showSpelling.equals("BINARY LOG STATUS") ? 1 : 0;
  }

  @Override
  public TextResultSet binaryLogs(Columns c, List<BinlogListing.BinlogFile> files) {
    boolean tiers = files.stream().anyMatch(f -> f.tier() != null);
    List<List<String>> rows = new ArrayList<>();
    for (BinlogListing.BinlogFile f : files) {
      rows.add(
          tiers
              ? List.of(f.name(), Long.toString(f.size()), String.valueOf(f.tier()))
              : List.of(f.name(), Long.toString(f.size())));
    }
    List<ColumnDefinition> columns =
        new ArrayList<>(
            List.of(c.text("Log_name", 765, true), c.number("File_size", ColumnType.LONGLONG, 20)));
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
            .map(p -> List.of(List.of(p.file(), Long.toString(p.offset()), "", "")))
            .orElse(List.of());
    return new TextResultSet(
        List.of(
            c.text("File", 1536, true),
            c.number("Position", ColumnType.LONGLONG, 20),
            c.text("Binlog_Do_DB", 765, true),
            c.text("Binlog_Ignore_DB", 765, true)),
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
              Long.toString(r.sourceId())));
    }
    return new TextResultSet(
        List.of(
            c.number("Server_id", ColumnType.LONG, 10),
            c.text("Host", 180, true),
            c.number("Port", ColumnType.LONG, 7),
            c.number("Master_id", ColumnType.LONG, 10)),
        rows);
  }

  @Override
  public String binlogMonitorPrivileges() {
    return "BINLOG MONITOR";
  }

  @Override
  public Privilege replicaListPrivilege() {
    return Privilege.REPLICATION_MASTER_ADMIN;
  }

  @Override
  public String replicaListPrivileges() {
    return "REPLICATION MASTER ADMIN";
  }

  @Override
  public String setGlobalPrivileges() {
    return "SUPER";
  }

  @Override
  public boolean hasBinlogGtidPos() {
    return true;
  }

  @Override
  public Optional<GtidSet> connectState(SessionVariables session) {
    return session.userText("slave_connect_state").map(MariadbGtidSet::parsePosition);
  }

  @Override
  public boolean hasGtidSetFunctions() {
    return false;
  }

  @Override
  public ErrPacket unknownFunction(String name, String database) {
    return ErrorMessages.functionDoesNotExist(database == null ? name : database + "." + name);
  }

  @Override
  public String columnClause(boolean where) {
    return where ? "WHERE" : "SELECT";
  }

  @Override
  public List<String> statementCounters() {
    return COUNTERS;
  }

  @Override
  public String counterName(String mysqlName) {
    switch (mysqlName) {
      case "Com_show_binary_log_status":
        return "Com_show_binlog_status";
      case "Com_show_replica_status":
        return "Com_show_slave_status";
      case "Com_show_replicas":
        return "Com_show_slave_hosts";
      default:
        return mysqlName;
    }
  }

  /** MariaDB 10.11 has semi-sync built in, so its status rows are always there. */
  @Override
  public Map<String, String> replicationStatus(
      Optional<SourceStatus> source, int registeredReplicas, long dumps) {
    Map<String, String> m = new LinkedHashMap<>();
    boolean streaming = source.map(s -> s.io() == SourceStatus.IoState.STREAMING).orElse(false);
    m.put("Rpl_semi_sync_master_clients", "0");
    m.put("Rpl_semi_sync_master_status", "OFF");
    m.put(
        "Rpl_semi_sync_slave_status",
        source.map(s -> streaming && s.semiSync() ? "ON" : "OFF").orElse("OFF"));
    m.put(
        "Slave_heartbeat_period",
        source
            .map(s -> String.format(Locale.ROOT, "%.3f", s.heartbeatPeriodSeconds()))
            .orElse("0.000"));
    m.put("Slave_received_heartbeats", source.map(s -> Long.toString(s.heartbeats())).orElse("0"));
    m.put(
        "Slave_running",
        source
            .map(
                s ->
                    ReplicaStatusTables.sqlRunning(s) && s.io() == SourceStatus.IoState.STREAMING
                        ? "ON"
                        : "OFF")
            .orElse("OFF"));
    m.put("Slaves_connected", Integer.toString(registeredReplicas));
    m.put("Slaves_running", Long.toString(dumps));
    return m;
  }

  @Override
  public ResultTable replicaStatus(
      Columns columns, Optional<SourceStatus> source, boolean all, boolean slaveSpelling) {
    return ReplicaStatusTables.mariadb(columns, source, all);
  }

  @Override
  public ErrPacket noSuchChannel(String name) {
    return ErrorMessages.noSuchMasterConnection(name);
  }

  @Override
  public ResultTable processList(Columns columns, List<ProcessInfo> processes, boolean full) {
    return ProcessListTables.show(columns, processes, full, true);
  }

  @Override
  public Optional<ResultTable> systemTable(
      TableName table,
      Columns columns,
      List<ProcessInfo> processes,
      Optional<SourceStatus> source) {
    if (table.is("information_schema", "PROCESSLIST")) {
      return Optional.of(ProcessListTables.table(columns, processes, true));
    }
    return Optional.empty();
  }

  @Override
  public String replicaMonitorPrivileges() {
    return "SUPER, REPLICA MONITOR";
  }

  @Override
  public Privilege binlogEventsPrivilege() {
    return Privilege.REPLICATION_CLIENT;
  }

  @Override
  public String binlogEventsPrivileges() {
    return "BINLOG MONITOR";
  }

  @Override
  public List<String> sqlModes() {
    return SqlModes.MARIADB;
  }
}
