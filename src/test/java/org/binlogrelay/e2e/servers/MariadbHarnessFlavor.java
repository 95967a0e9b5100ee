package org.binlogrelay.e2e.servers;

import static org.binlogrelay.e2e.servers.HarnessFlavor.quote;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * MariaDB 10.11 and 11.x: GTIDs are always on, {@code gtid_strict_mode=ON}, {@code CHANGE MASTER TO
 * ... MASTER_USE_GTID=slave_pos}. A GTID position is a list {@code domain-server-seqno}, one per
 * domain.
 */
final class MariadbHarnessFlavor implements HarnessFlavor {

  /**
   * {@code innodb_log_file_size}; keep in step with {@code LocalMariadbInstallation}, whose
   * template uses it.
   */
  private static final String REDO_LOG_SIZE = "48M";

  @Override
  public List<String> serverOptions() {
    return List.of(
        "--gtid-strict-mode=ON",
        "--log-slave-updates=ON",
        "--innodb-log-file-size=" + REDO_LOG_SIZE);
  }

  @Override
  public List<String> createUserStatements() {
    Credentials repl = Credentials.REPLICATION;
    Credentials test = Credentials.TEST;
    return List.of(
        "CREATE USER " + quote(repl.user()) + "@'%' IDENTIFIED BY " + quote(repl.password()),
        "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO " + quote(repl.user()) + "@'%'",
        "CREATE USER " + quote(test.user()) + "@'%' IDENTIFIED BY " + quote(test.password()),
        "GRANT ALL PRIVILEGES ON *.* TO " + quote(test.user()) + "@'%' WITH GRANT OPTION");
  }

  /**
   * {@code gtid_current_pos}: the binlog position on a primary, the applied position on a replica.
   */
  @Override
  public String executedGtidSetQuery() {
    return "SELECT @@global.gtid_current_pos";
  }

  @Override
  public String normalizeGtidSet(String gtidSet) {
    return Arrays.stream(gtidSet.split(","))
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .sorted()
        .collect(Collectors.joining(","));
  }

  @Override
  public boolean hasExecuted(DatabaseServer server, String gtidSet) {
    Map<Long, Long> executed = lastSeqnoByDomain(server.queryValue(executedGtidSetQuery()));
    Map<Long, Long> wanted = lastSeqnoByDomain(gtidSet);
    return wanted.entrySet().stream()
        .allMatch(e -> executed.getOrDefault(e.getKey(), -1L) >= e.getValue());
  }

  private static Map<Long, Long> lastSeqnoByDomain(String position) {
    Map<Long, Long> byDomain = new HashMap<>();
    for (String gtid : position.split(",")) {
      String trimmed = gtid.strip();
      if (trimmed.isEmpty()) {
        continue;
      }
      String[] parts = trimmed.split("-");
      if (parts.length != 3) {
        throw new IllegalArgumentException(
            "Invalid MariaDB GTID '"
                + trimmed
                + "' in position '"
                + position
                + "': expected domain-server-seqno");
      }
      byDomain.merge(Long.parseLong(parts[0]), Long.parseUnsignedLong(parts[2]), Math::max);
    }
    return byDomain;
  }

  @Override
  public List<String> startReplicationStatements(HostAndPort source, Credentials credentials) {
    return changeMasterAndStart(source, credentials, "");
  }

  /**
   * {@code MASTER_SSL=0}: a MariaDB 11.8 replica asks for TLS by default ({@code
   * Master_SSL_Allowed=Yes}) and fails against a source without it, such as a harness-made 10.11
   * server ("SSL is required, but the server does not support it"); 11.8 servers make their own
   * certificate at start-up.
   */
  @Override
  public List<String> startReplicationWithoutTlsStatements(
      HostAndPort source, Credentials credentials) {
    return changeMasterAndStart(source, credentials, ", MASTER_SSL=0");
  }

  private static List<String> changeMasterAndStart(
      HostAndPort source, Credentials credentials, String more) {
    return List.of(
        "CHANGE MASTER TO MASTER_HOST="
            + quote(source.host())
            + ", MASTER_PORT="
            + source.port()
            + ", MASTER_USER="
            + quote(credentials.user())
            + ", MASTER_PASSWORD="
            + quote(credentials.password())
            + ", MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1"
            + more,
        "START SLAVE");
  }

  /**
   * {@code @@have_ssl}: YES once the server has a certificate (11.8 makes one; the harness gives
   * 10.11 none).
   */
  @Override
  public boolean offersTls(DatabaseServer server) {
    return "YES".equalsIgnoreCase(server.queryValue("SELECT @@global.have_ssl"));
  }

  @Override
  public List<String> stopReplicationStatements() {
    return List.of("STOP SLAVE");
  }

  @Override
  public String replicaStatusStatement() {
    return "SHOW SLAVE STATUS";
  }

  @Override
  public String resetBinlogsStatement() {
    return "RESET MASTER";
  }

  @Override
  public Map<String, String> dockerEnvironment(String rootPassword) {
    return Map.of("MARIADB_ROOT_PASSWORD", rootPassword, "MARIADB_INITDB_SKIP_TZINFO", "1");
  }
}
