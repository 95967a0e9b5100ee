package org.binlogrelay.e2e.servers;

import static org.binlogrelay.e2e.servers.HarnessFlavor.quote;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * MySQL 8.4 and 9.x: {@code gtid_mode=ON}, {@code caching_sha2_password} users, {@code CHANGE
 * REPLICATION SOURCE}.
 */
final class MysqlHarnessFlavor implements HarnessFlavor {

  private static final Pattern WHITESPACE = Pattern.compile("\\s+");

  @Override
  public List<String> serverOptions() {
    return List.of(
        "--gtid-mode=ON",
        "--enforce-gtid-consistency=ON",
        "--log-replica-updates=ON",
        "--mysqlx=OFF",
        "--innodb-redo-log-capacity=64M");
  }

  @Override
  public List<String> createUserStatements() {
    Credentials repl = Credentials.REPLICATION;
    Credentials test = Credentials.TEST;
    return List.of(
        "CREATE USER "
            + quote(repl.user())
            + "@'%' IDENTIFIED WITH caching_sha2_password BY "
            + quote(repl.password()),
        "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO " + quote(repl.user()) + "@'%'",
        "CREATE USER "
            + quote(test.user())
            + "@'%' IDENTIFIED WITH caching_sha2_password BY "
            + quote(test.password()),
        "GRANT ALL PRIVILEGES ON *.* TO " + quote(test.user()) + "@'%' WITH GRANT OPTION");
  }

  @Override
  public String executedGtidSetQuery() {
    return "SELECT @@global.gtid_executed";
  }

  @Override
  public String normalizeGtidSet(String gtidSet) {
    // MySQL prints UUIDs in sorted order, one per line; only the line breaks differ between two
    // equal sets.
    return WHITESPACE.matcher(gtidSet).replaceAll("").toLowerCase(Locale.ROOT);
  }

  @Override
  public boolean hasExecuted(DatabaseServer server, String gtidSet) {
    return "1".equals(server.queryValue("SELECT GTID_SUBSET(?, @@global.gtid_executed)", gtidSet));
  }

  @Override
  public List<String> startReplicationStatements(HostAndPort source, Credentials credentials) {
    return List.of(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST="
            + quote(source.host())
            + ", SOURCE_PORT="
            + source.port()
            + ", SOURCE_USER="
            + quote(credentials.user())
            + ", SOURCE_PASSWORD="
            + quote(credentials.password())
            + ", SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1"
            + ", SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=86400",
        "START REPLICA");
  }

  @Override
  public List<String> startReplicationWithoutTlsStatements(
      HostAndPort source, Credentials credentials) {
    return startReplicationStatements(source, credentials);
  }

  /** MySQL makes its own certificates at start-up when it has none. */
  @Override
  public boolean offersTls(DatabaseServer server) {
    return true;
  }

  @Override
  public List<String> stopReplicationStatements() {
    return List.of("STOP REPLICA");
  }

  @Override
  public String replicaStatusStatement() {
    return "SHOW REPLICA STATUS";
  }

  @Override
  public String resetBinlogsStatement() {
    return "RESET BINARY LOGS AND GTIDS";
  }

  @Override
  public Map<String, String> dockerEnvironment(String rootPassword) {
    return Map.of("MYSQL_ROOT_PASSWORD", rootPassword, "MYSQL_INITDB_SKIP_TZINFO", "1");
  }
}
