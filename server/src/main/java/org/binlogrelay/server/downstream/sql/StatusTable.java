package org.binlogrelay.server.downstream.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.binlogrelay.protocol.query.VariableScope;

/**
 * {@code SHOW [GLOBAL | SESSION] STATUS}: the counters that mean something for a relay, each from a
 * real counter, in name order:
 *
 * <ul>
 *   <li>{@code Uptime}, {@code Uptime_since_flush_status}: seconds since the downstream server
 *       started;
 *   <li>{@code Connections}, {@code Max_used_connections}, {@code Aborted_connects}, {@code
 *       Threads_connected}, {@code Threads_running} (connections running a statement or serving a
 *       dump);
 *   <li>{@code Bytes_sent}, {@code Bytes_received}: bytes on the wire (TLS records included), per
 *       session and in all;
 *   <li>{@code Questions}, {@code Queries} and {@code Com_xxx} of the statements the relay ran, per
 *       session and in all;
 *   <li>{@code Binlog_cache_use} and friends: 0, the relay writes no transaction through a binlog
 *       cache;
 *   <li>semi-sync: the replica side is ON while the relay's connection to its primary acknowledges;
 *       the source side is OFF (the relay does not wait for its replicas);
 *   <li>MariaDB's {@code Slave_running} (the relay follows its primary and writes), {@code
 *       Slaves_connected} (registered replicas), {@code Slaves_running} (dumps), {@code
 *       Slave_received_heartbeats};
 *   <li>{@code Ssl_accepts}, {@code Ssl_finished_accepts}; {@code Ssl_version} and {@code
 *       Ssl_cipher} of the session's own TLS, empty over plain TCP.
 * </ul>
 *
 * Session values where the server has them (GLOBAL shows the server's); global-only counters in
 * both. Not thread-safe: one per statement.
 */
final class StatusTable {
  private final Map<String, String> rows = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
  private final boolean global;

  private StatusTable(boolean global) {
    this.global = global;
  }

  /** The status rows for a statement of {@code scope}. */
  static List<List<String>> rows(
      VariableScope scope,
      SqlEnvironment env,
      ServerCounters counters,
      Connections connections,
      Optional<SourceStatus> source,
      StatementCounters statements,
      SessionVariables session,
      ClientContext client,
      int registeredReplicas) {
    StatusTable t = new StatusTable(scope == VariableScope.GLOBAL);
    long now = env.time().milliseconds();
    long uptime =
        counters.startedAtMillis() <= 0 ? 0 : Math.max(0, now - counters.startedAtMillis()) / 1000;
    List<ProcessInfo> processes = connections.list();
    long running =
        processes.stream().filter(p -> p.activity() != ProcessInfo.Activity.SLEEP).count();
    long dumps = processes.stream().filter(ProcessInfo::dumping).count();
    boolean asking = processes.stream().noneMatch(p -> p.id() == client.connectionId());
    t.put("Uptime", uptime);
    t.put("Uptime_since_flush_status", uptime);
    t.put("Connections", counters.connections());
    t.put("Max_used_connections", counters.maxUsedConnections());
    t.put("Aborted_connects", counters.abortedConnects());
    t.put("Threads_connected", processes.size());
    t.put("Threads_running", running + (asking ? 1 : 0));
    t.both("Bytes_sent", counters::bytesSent, session.traffic()::bytesSent);
    t.both("Bytes_received", counters::bytesReceived, session.traffic()::bytesReceived);
    t.both("Questions", () -> statements.get("Questions"), () -> session.counted("Questions"));
    t.both("Queries", () -> statements.get("Questions"), () -> session.counted("Questions"));
    for (String com : env.dialect().statementCounters()) {
      t.both(com, () -> statements.get(com), () -> session.counted(com));
    }
    for (String cache :
        List.of(
            "Binlog_cache_disk_use",
            "Binlog_cache_use",
            "Binlog_stmt_cache_disk_use",
            "Binlog_stmt_cache_use")) {
      t.put(cache, 0);
    }
    t.put("Ssl_accepts", counters.tlsAccepts());
    t.put("Ssl_finished_accepts", counters.tlsFinishedAccepts());
    t.rows.put("Ssl_version", t.global ? "" : client.tlsVersion());
    t.rows.put("Ssl_cipher", t.global ? "" : client.tlsCipher());
    t.rows.putAll(env.dialect().replicationStatus(source, registeredReplicas, dumps));
    List<List<String>> out = new ArrayList<>();
    for (Map.Entry<String, String> e : t.rows.entrySet()) {
      out.add(List.of(e.getKey(), e.getValue()));
    }
    return out;
  }

  private void put(String name, long value) {
    rows.put(name, Long.toString(value));
  }

  private void both(String name, LongSupplier server, LongSupplier session) {
    rows.put(name, Long.toString(global ? server.getAsLong() : session.getAsLong()));
  }
}
