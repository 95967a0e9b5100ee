package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.server.downstream.account.Privilege;

/**
 * The relay as a MySQL 8.4 / 9.x server: {@code caching_sha2_password} by default, utf8mb4_0900_ai_ci,
 * {@code gtid_mode}, {@code server_uuid}, the 8.4 grammar (no SHOW MASTER STATUS, SHOW SLAVE HOSTS, SHOW
 * MASTER LOGS) and the column shapes MySQL 9.7 sends (checked against captured transcripts). Stateless.
 */
public final class MysqlDialect implements Dialect {
  public static final MysqlDialect INSTANCE = new MysqlDialect();
  private static final Set<String> SPELLINGS = Set.of("BINARY LOGS", "BINARY LOG STATUS", "REPLICAS");

  private MysqlDialect() {}

  @Override
  public GtidFlavor flavor() {
    return GtidFlavor.MYSQL;
  }

  @Override
  public String productName() {
    return "MySQL";
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
  public List<SystemVariable> variables(ServerIdentity id, BinlogListing binlogs) {
    List<SystemVariable> v = new ArrayList<>(CommonVariables.of(id, this));
    v.add(SystemVariable.global("server_uuid", VariableType.STRING, id.serverUuid()));
    v.add(SystemVariable.global("gtid_mode", VariableType.STRING, "ON"));
    v.add(SystemVariable.global("enforce_gtid_consistency", VariableType.STRING, "ON"));
    v.add(SystemVariable.live("gtid_executed", VariableType.STRING, binlogs::executedGtids));
    v.add(SystemVariable.live("gtid_purged", VariableType.STRING, binlogs::purgedGtids));
    v.add(SystemVariable.global("log_replica_updates", VariableType.BOOLEAN, "1"));
    v.add(SystemVariable.global("rpl_semi_sync_source_enabled", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.global("binlog_transaction_compression", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.session("transaction_isolation", VariableType.STRING, "REPEATABLE-READ"));
    v.add(SystemVariable.session("sql_mode", VariableType.STRING, "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,"
        + "NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"));
    v.add(SystemVariable.global("default_authentication_plugin", VariableType.STRING, defaultAuthPlugin()));
    return v;
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
    List<List<String>> rows = new ArrayList<>();
    for (BinlogListing.BinlogFile f : files) {
      rows.add(List.of(f.name(), Long.toString(f.size()), "No"));
    }
    return new TextResultSet(List.of(c.text("Log_name", 1020, true), c.number("File_size", ColumnType.LONGLONG, 21),
        c.text("Encrypted", 12, true)), rows);
  }

  @Override
  public TextResultSet binaryLogStatus(Columns c, Optional<BinlogListing.Position> position, String executedGtids) {
    List<List<String>> rows = position.map(p -> List.of(List.of(p.file(), Long.toString(p.offset()), "", "",
        executedGtids))).orElse(List.of());
    return new TextResultSet(List.of(c.text("File", 2048, true), c.number("Position", ColumnType.LONGLONG, 21),
        c.text("Binlog_Do_DB", 1020, true), c.text("Binlog_Ignore_DB", 1020, true),
        c.text("Executed_Gtid_Set", 160, true)), rows);
  }

  @Override
  public TextResultSet replicas(Columns c, List<ReplicaInfo> replicas) {
    List<List<String>> rows = new ArrayList<>();
    for (ReplicaInfo r : replicas) {
      rows.add(List.of(Long.toString(r.serverId()), r.host(), Integer.toString(r.port()), Long.toString(r.sourceId()),
          r.uuid()));
    }
    return new TextResultSet(List.of(c.number("Server_Id", ColumnType.LONG, 11), c.text("Host", 1020, true),
        c.number("Port", ColumnType.LONG, 8), c.number("Source_Id", ColumnType.LONG, 11),
        c.text("Replica_UUID", 144, true)), rows);
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
}
