package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.query.ColumnType;
import org.binlogrelay.protocol.query.TextResultSet;
import org.binlogrelay.server.downstream.account.Privilege;

/**
 * The relay as a MariaDB 10.11 server: {@code mysql_native_password} by default, utf8mb4_general_ci,
 * {@code gtid_domain_id} and the {@code gtid_*_pos} variables, the MASTER / SLAVE spellings, and GTID
 * positioning through {@code SET @slave_connect_state} before a plain COM_BINLOG_DUMP. Column shapes follow
 * captured MariaDB 10.11 transcripts. Stateless.
 */
public final class MariadbDialect implements Dialect {
  public static final MariadbDialect INSTANCE = new MariadbDialect();
  private static final Set<String> SPELLINGS = Set.of("BINARY LOGS", "MASTER LOGS", "MASTER STATUS", "BINLOG STATUS",
      "SLAVE HOSTS", "REPLICA HOSTS");

  private MariadbDialect() {}

  @Override
  public GtidFlavor flavor() {
    return GtidFlavor.MARIADB;
  }

  @Override
  public String productName() {
    return "MariaDB";
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
  public List<SystemVariable> variables(ServerIdentity id, BinlogListing binlogs) {
    List<SystemVariable> v = new ArrayList<>(CommonVariables.of(id, this));
    // MariaDB gives server_id a session value (mysqlbinlog output sets it) that needs BINLOG REPLAY to change.
    v.replaceAll(x -> x.name().equals("server_id") ? x.withPrivileges("SUPER, BINLOG REPLAY",
        "SUPER, REPLICATION MASTER ADMIN") : x);
    v.add(SystemVariable.global("gtid_domain_id", VariableType.UNSIGNED, Long.toString(id.gtidDomainId())));
    v.add(SystemVariable.global("gtid_strict_mode", VariableType.BOOLEAN, "1"));
    v.add(SystemVariable.global("gtid_ignore_duplicates", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.live("gtid_binlog_pos", VariableType.STRING, binlogs::executedGtids));
    v.add(SystemVariable.live("gtid_current_pos", VariableType.STRING, binlogs::executedGtids));
    v.add(SystemVariable.live("gtid_binlog_state", VariableType.STRING, binlogs::binlogState));
    v.add(SystemVariable.global("gtid_slave_pos", VariableType.STRING, ""));
    v.add(SystemVariable.global("log_slave_updates", VariableType.BOOLEAN, "1"));
    v.add(SystemVariable.global("rpl_semi_sync_master_enabled", VariableType.BOOLEAN, "0"));
    v.add(SystemVariable.global("binlog_annotate_row_events", VariableType.BOOLEAN, "1"));
    v.add(SystemVariable.session("tx_isolation", VariableType.STRING, "REPEATABLE-READ"));
    v.add(SystemVariable.session("transaction_isolation", VariableType.STRING, "REPEATABLE-READ"));
    v.add(SystemVariable.session("sql_mode", VariableType.STRING,
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
    List<List<String>> rows = new ArrayList<>();
    for (BinlogListing.BinlogFile f : files) {
      rows.add(List.of(f.name(), Long.toString(f.size())));
    }
    return new TextResultSet(List.of(c.text("Log_name", 765, true), c.number("File_size", ColumnType.LONGLONG, 20)),
        rows);
  }

  @Override
  public TextResultSet binaryLogStatus(Columns c, Optional<BinlogListing.Position> position, String executedGtids) {
    List<List<String>> rows = position.map(p -> List.of(List.of(p.file(), Long.toString(p.offset()), "", "")))
        .orElse(List.of());
    return new TextResultSet(List.of(c.text("File", 1536, true), c.number("Position", ColumnType.LONGLONG, 20),
        c.text("Binlog_Do_DB", 765, true), c.text("Binlog_Ignore_DB", 765, true)), rows);
  }

  @Override
  public TextResultSet replicas(Columns c, List<ReplicaInfo> replicas) {
    List<List<String>> rows = new ArrayList<>();
    for (ReplicaInfo r : replicas) {
      rows.add(List.of(Long.toString(r.serverId()), r.host(), Integer.toString(r.port()), Long.toString(r.sourceId())));
    }
    return new TextResultSet(List.of(c.number("Server_id", ColumnType.LONG, 10), c.text("Host", 180, true),
        c.number("Port", ColumnType.LONG, 7), c.number("Master_id", ColumnType.LONG, 10)), rows);
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
}
