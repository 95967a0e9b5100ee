package org.binlogrelay.e2e.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;
import static org.binlogrelay.protocol.testing.Eventually.steady;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Captures the transcripts in {@code src/test/resources/transcripts/}: real clients (MySQL 9.7 and
 * MariaDB 10.11 replicas, {@code mysqlbinlog}, {@code mariadb-binlog}, mysql-binlog-connector-java,
 * the command-line clients, Connector/J) talking to real servers through a {@link TranscriptProxy}.
 * A tool rather than a test: it runs only with the Maven profile {@code capture-transcripts} and
 * overwrites the files.
 *
 * <pre>
 * mvn -B -o -pl e2e -am verify -Pcapture-transcripts -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dit.test=TranscriptCaptureIT
 * </pre>
 */
@ExtendWith(ServerFarmExtension.class)
@EnabledIfSystemProperty(named = "transcripts.capture", matches = "true")
class TranscriptCaptureIT {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Credentials NO_PRIVILEGE = new Credentials("norepl", "norepl-pass");

  @Test
  void mysqlReplicaAutoPosition(ServerFarm farm) throws Exception {
    DatabaseServer primary = primaryWithData(farm, ServerVersion.MYSQL_9_7);
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    try (TranscriptProxy proxy = new TranscriptProxy(primary.address())) {
      ReplicationLink link =
          ReplicationLink.establish(replica, proxied(proxy), Credentials.REPLICATION, "proxy");
      link.awaitCaughtUp(primary, WAIT);
      link.stop();
      save(
          "mysql-9.7-replica-auto-position",
          proxy,
          1,
          "MySQL 9.7 replica, MySQL 9.7 source behind the proxy:",
          "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=proxy, SOURCE_USER='repl',"
              + " SOURCE_PASSWORD='repl-pass', SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1;"
              + " START REPLICA");
    }
  }

  @Test
  void mysqlReplicaFilePosition(ServerFarm farm) throws Exception {
    DatabaseServer primary = primaryWithData(farm, ServerVersion.MYSQL_9_7);
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    try (TranscriptProxy proxy = new TranscriptProxy(primary.address())) {
      replica.execute(
          "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT="
              + proxy.port()
              + ", SOURCE_USER='repl', SOURCE_PASSWORD='repl-pass', SOURCE_AUTO_POSITION=0,"
              + " SOURCE_LOG_FILE='binlog.000001', SOURCE_LOG_POS=4, GET_SOURCE_PUBLIC_KEY=1,"
              + " SOURCE_CONNECT_RETRY=1",
          "START REPLICA");
      awaitIoRunning(replica);
      replica.execute("STOP REPLICA");
      save(
          "mysql-9.7-replica-file-position",
          proxy,
          1,
          "MySQL 9.7 replica, MySQL 9.7 source behind the proxy:",
          "CHANGE REPLICATION SOURCE TO ... SOURCE_AUTO_POSITION=0, SOURCE_LOG_FILE='binlog.000001',"
              + " SOURCE_LOG_POS=4, GET_SOURCE_PUBLIC_KEY=1; START REPLICA");
    }
  }

  @Test
  void mysqlReplicaWithoutPrivilege(ServerFarm farm) throws Exception {
    DatabaseServer primary = primaryWithData(farm, ServerVersion.MYSQL_9_7);
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    try (TranscriptProxy proxy = new TranscriptProxy(primary.address())) {
      ReplicationLink.establish(replica, proxied(proxy), NO_PRIVILEGE, "proxy");
      ReplicaStatus status = awaitIoError(replica);
      replica.execute("STOP REPLICA");
      save(
          "mysql-9.7-replica-no-privilege",
          proxy,
          1,
          "MySQL 9.7 replica as a user without REPLICATION SLAVE:",
          "Last_IO_Errno " + status.lastIoErrno() + ": " + status.lastIoError());
    }
  }

  @Test
  void mysqlReplicaWrongPassword(ServerFarm farm) throws Exception {
    DatabaseServer primary = primaryWithData(farm, ServerVersion.MYSQL_9_7);
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    try (TranscriptProxy proxy = new TranscriptProxy(primary.address())) {
      ReplicationLink.establish(replica, proxied(proxy), new Credentials("repl", "wrong"), "proxy");
      ReplicaStatus status = awaitIoError(replica);
      replica.execute("STOP REPLICA");
      save(
          "mysql-9.7-replica-wrong-password",
          proxy,
          1,
          "MySQL 9.7 replica with a wrong password:",
          "Last_IO_Errno " + status.lastIoErrno() + ": " + status.lastIoError());
    }
  }

  @Test
  void mariadbReplicaSlavePos(ServerFarm farm) throws Exception {
    DatabaseServer primary = primaryWithData(farm, ServerVersion.MARIADB_10_11);
    DatabaseServer replica = farm.start(ServerVersion.MARIADB_10_11, "replica");
    try (TranscriptProxy proxy = new TranscriptProxy(primary.address())) {
      ReplicationLink link =
          ReplicationLink.establish(replica, proxied(proxy), Credentials.REPLICATION, "proxy");
      link.awaitCaughtUp(primary, WAIT);
      link.stop();
      save(
          "mariadb-10.11-replica-slave-pos",
          proxy,
          1,
          "MariaDB 10.11 replica, MariaDB 10.11 source behind the" + " proxy:",
          "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=proxy, MASTER_USER='repl',"
              + " MASTER_PASSWORD='repl-pass', MASTER_USE_GTID=slave_pos; START SLAVE");
    }
  }

  @Test
  void mariadbReplicaFilePosition(ServerFarm farm) throws Exception {
    DatabaseServer primary = primaryWithData(farm, ServerVersion.MARIADB_10_11);
    DatabaseServer replica = farm.start(ServerVersion.MARIADB_10_11, "replica");
    try (TranscriptProxy proxy = new TranscriptProxy(primary.address())) {
      replica.execute(
          "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT="
              + proxy.port()
              + ", MASTER_USER='repl', MASTER_PASSWORD='repl-pass', MASTER_USE_GTID=no,"
              + " MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4, MASTER_CONNECT_RETRY=1",
          "START SLAVE");
      awaitIoRunning(replica);
      replica.execute("STOP SLAVE");
      save(
          "mariadb-10.11-replica-file-position",
          proxy,
          1,
          "MariaDB 10.11 replica, MariaDB 10.11 source behind" + " the proxy:",
          "CHANGE MASTER TO ... MASTER_USE_GTID=no, MASTER_LOG_FILE='binlog.000001',"
              + " MASTER_LOG_POS=4; START SLAVE");
    }
  }

  @Test
  void mariadbReplicaWithoutPrivilege(ServerFarm farm) throws Exception {
    DatabaseServer primary = primaryWithData(farm, ServerVersion.MARIADB_10_11);
    DatabaseServer replica = farm.start(ServerVersion.MARIADB_10_11, "replica");
    try (TranscriptProxy proxy = new TranscriptProxy(primary.address())) {
      ReplicationLink.establish(replica, proxied(proxy), NO_PRIVILEGE, "proxy");
      ReplicaStatus status = awaitIoError(replica);
      replica.execute("STOP SLAVE");
      save(
          "mariadb-10.11-replica-no-privilege",
          proxy,
          1,
          "MariaDB 10.11 replica as a user without REPLICATION" + " SLAVE:",
          "Last_IO_Errno " + status.lastIoErrno() + ": " + status.lastIoError());
    }
  }

  @Test
  void mysqlbinlog(ServerFarm farm) throws Exception {
    DatabaseServer primary = primaryWithData(farm, ServerVersion.MYSQL_9_7);
    try (TranscriptProxy proxy = new TranscriptProxy(primary.address())) {
      RealClients.mysqlbinlog(
              proxy.port(),
              "repl",
              "repl-pass",
              "--read-from-remote-server",
              "--get-server-public-key",
              "binlog.000001")
          .requireSuccess("mysqlbinlog");
      save(
          "mysqlbinlog-9.7",
          proxy,
          1,
          "MySQL 9.7 mysqlbinlog against MySQL 9.7:",
          "mysqlbinlog --read-from-remote-server --get-server-public-key binlog.000001");
    }
    try (TranscriptProxy proxy = new TranscriptProxy(primary.address())) {
      RealClients.mysqlbinlog(
              proxy.port(),
              "repl",
              "repl-pass",
              "--get-server-public-key",
              "--read-from-remote-source=BINLOG-DUMP-GTIDS",
              "binlog.000001")
          .requireSuccess("mysqlbinlog");
      save(
          "mysqlbinlog-9.7-dump-gtids",
          proxy,
          1,
          "MySQL 9.7 mysqlbinlog against MySQL 9.7:",
          "mysqlbinlog --read-from-remote-source=BINLOG-DUMP-GTIDS --get-server-public-key binlog.000001");
    }
  }

  @Test
  void mariadbBinlog(ServerFarm farm) throws Exception {
    DatabaseServer primary = primaryWithData(farm, ServerVersion.MARIADB_10_11);
    try (TranscriptProxy proxy = new TranscriptProxy(primary.address())) {
      RealClients.mariadbBinlog(proxy.port(), "repl", "repl-pass", "binlog.000001")
          .requireSuccess("mariadb-binlog");
      save(
          "mariadb-binlog-10.11",
          proxy,
          1,
          "MariaDB 10.11 mariadb-binlog against MariaDB 10.11:",
          "mariadb-binlog --read-from-remote-server binlog.000001");
    }
  }

  @Test
  void binlogConnectorJava(ServerFarm farm) throws Exception {
    DatabaseServer mysql = primaryWithData(farm, ServerVersion.MYSQL_9_7);
    // caching_sha2_password: log in once with full authentication so the fast path the library uses
    // works.
    warmUpSha2Cache(mysql);
    captureConnector(mysql, "", "binlog-connector-java-mysql-9.7-gtid", "setGtidSet(\"\")");
    captureConnector(mysql, null, "binlog-connector-java-mysql-9.7", "current file and position");
    DatabaseServer mariadb = primaryWithData(farm, ServerVersion.MARIADB_10_11);
    captureConnector(
        mariadb, null, "binlog-connector-java-mariadb-10.11", "current file and position");
  }

  /** Statements for the command-line clients, one per line so that errors name their line. */
  private static final String MYSQL_SCRIPT =
      String.join(
              ";\n",
              "SELECT @@version_comment LIMIT 1",
              "SHOW BINARY LOGS",
              "SHOW BINARY LOG STATUS",
              "SHOW REPLICAS",
              "SHOW MASTER STATUS",
              "SHOW SLAVE HOSTS",
              "SHOW MASTER LOGS",
              "SHOW BINLOG STATUS",
              "SELECT @@nosuch",
              "SELECT @@GLOBAL.gtid_domain_id",
              "SELEC 1",
              "SET GLOBAL server_id = 5",
              "SET server_id = 5",
              "SELECT @@session.server_id",
              "SET NAMES utf8mb4",
              "SELECT @@character_set_client, @@gtid_executed, @@log_bin, @@read_only",
              "SELECT 'a', 7, NULL, 1.50",
              "SHOW VARIABLES LIKE 'binlog\\_checksum'",
              "SET @a = 1, server_id = 2",
              "SELECT @a")
          + ";\n";

  private static final String MARIADB_SCRIPT =
      String.join(
              ";\n",
              "SELECT @@version_comment LIMIT 1",
              "SHOW BINARY LOGS",
              "SHOW MASTER STATUS",
              "SHOW SLAVE HOSTS",
              "SHOW BINLOG STATUS",
              "SHOW MASTER LOGS",
              "SHOW REPLICAS",
              "SHOW BINARY LOG STATUS",
              "SELECT @@nosuch",
              "SELECT @@GLOBAL.gtid_mode",
              "SELEC 1",
              "SET GLOBAL server_id = 5",
              "SET server_id = 5",
              "SELECT @@session.server_id",
              "SET NAMES utf8mb4",
              "SELECT @@character_set_client, @@gtid_binlog_pos, @@gtid_strict_mode, @@log_bin",
              "SELECT 'a', 7, NULL, 1.50",
              "SHOW VARIABLES LIKE 'gtid\\_domain\\_id'")
          + ";\n";

  @Test
  void commandLineClients(ServerFarm farm) throws Exception {
    DatabaseServer mysql = primaryWithData(farm, ServerVersion.MYSQL_9_7);
    try (TranscriptProxy proxy = new TranscriptProxy(mysql.address())) {
      CommandResult r =
          RealClients.mysqlScript(
              proxy.port(), "repl", "repl-pass", MYSQL_SCRIPT, "--get-server-public-key");
      save(
          "mysql-client-9.7",
          proxy,
          1,
          "MySQL 9.7 mysql client against MySQL 9.7 (exit " + r.exitCode() + "):",
          "mysql --force < (the statements below)");
    }
    DatabaseServer mariadb = primaryWithData(farm, ServerVersion.MARIADB_10_11);
    try (TranscriptProxy proxy = new TranscriptProxy(mariadb.address())) {
      CommandResult r =
          RealClients.mariadbScript(proxy.port(), "repl", "repl-pass", MARIADB_SCRIPT);
      save(
          "mariadb-client-10.11",
          proxy,
          1,
          "MariaDB 10.11 mariadb client against MariaDB 10.11 (exit " + r.exitCode() + "):",
          "mariadb --force < (the statements below)");
    }
  }

  @Test
  void connectorJ(ServerFarm farm) throws Exception {
    DatabaseServer mysql = primaryWithData(farm, ServerVersion.MYSQL_9_7);
    try (TranscriptProxy proxy = new TranscriptProxy(mysql.address());
        Connection c =
            DriverManager.getConnection(
                "jdbc:mysql://127.0.0.1:"
                    + proxy.port()
                    + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true",
                "repl",
                "repl-pass");
        Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT @@version")) {
        assertThat(rs.next()).isTrue();
      }
      save(
          "connector-j-9.7",
          proxy,
          1,
          "mysql-connector-j 9.7 against MySQL 9.7:",
          "DriverManager.getConnection(sslMode=DISABLED, allowPublicKeyRetrieval=true); SELECT @@version");
    }
  }

  // ---- helpers ----

  private static DatabaseServer primaryWithData(ServerFarm farm, ServerVersion version) {
    DatabaseServer primary = farm.start(version, "primary");
    primary.execute(
        "CREATE DATABASE t",
        "CREATE TABLE t.a (id INT PRIMARY KEY, v VARCHAR(20))",
        "INSERT INTO t.a VALUES (1, 'one'), (2, 'two')");
    if (version.flavor() == ServerFlavor.MYSQL) {
      primary.execute(
          "CREATE USER norepl@'%' IDENTIFIED WITH caching_sha2_password BY 'norepl-pass'");
    } else {
      primary.execute("CREATE USER norepl@'%' IDENTIFIED BY 'norepl-pass'");
    }
    return primary;
  }

  private static HostAndPort proxied(TranscriptProxy proxy) {
    return new HostAndPort("127.0.0.1", proxy.port());
  }

  private static void warmUpSha2Cache(DatabaseServer server) throws Exception {
    try (Connection c =
        DriverManager.getConnection(
            "jdbc:mysql://" + server.address() + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true",
            "repl",
            "repl-pass")) {
      assertThat(c.isValid(5)).isTrue();
    }
  }

  private static void captureConnector(
      DatabaseServer server, String gtidSet, String name, String how) throws Exception {
    try (TranscriptProxy proxy = new TranscriptProxy(server.address())) {
      BinaryLogClient client = new BinaryLogClient("127.0.0.1", proxy.port(), "repl", "repl-pass");
      client.setServerId(4242);
      client.setKeepAlive(false);
      if (gtidSet != null) {
        client.setGtidSet(gtidSet);
      }
      CountDownLatch events = new CountDownLatch(4);
      client.registerEventListener(event -> events.countDown());
      client.connect(TimeUnit.SECONDS.toMillis(30));
      server.execute("INSERT INTO t.a VALUES (3, 'three')", "DELETE FROM t.a WHERE id = 3");
      assertThat(events.await(30, TimeUnit.SECONDS)).as("events from " + server).isTrue();
      client.disconnect();
      save(
          name,
          proxy,
          2,
          "mysql-binlog-connector-java 0.41.0 against " + server.version() + ", " + how + ":",
          "new BinaryLogClient(host, port, \"repl\", \"repl-pass\"), setServerId(4242)"
              + (gtidSet == null ? "" : ", setGtidSet(\"" + gtidSet + "\")")
              + ", connect()");
    }
  }

  /**
   * Waits until the replica's IO thread runs and has read all there is (its read position stopped
   * moving).
   */
  private static void awaitIoRunning(DatabaseServer replica) throws InterruptedException {
    eventually(
        WAIT,
        "the replica's IO thread reading",
        () -> ReplicaStatus.of(replica),
        status -> status.ioRunning() && !"0".equals(readPosition(status)));
    steady(
        WAIT,
        Duration.ofSeconds(1),
        "the replica's read position",
        () -> readPosition(ReplicaStatus.of(replica)));
  }

  private static String readPosition(ReplicaStatus status) {
    return status
        .columns()
        .getOrDefault(
            "Read_Master_Log_Pos", status.columns().getOrDefault("Read_Source_Log_Pos", "0"));
  }

  private static ReplicaStatus awaitIoError(DatabaseServer replica) throws InterruptedException {
    return eventually(
        WAIT,
        "an error of the replica's IO thread",
        () -> ReplicaStatus.of(replica),
        status -> status.lastIoErrno() != 0);
  }

  private static void save(String name, TranscriptProxy proxy, int connections, String... comments)
      throws IOException {
    List<Transcript.Exchange> exchanges = new ArrayList<>();
    List<ConnectionTranscriber> seen = proxy.connections();
    for (int i = 0; i < Math.min(connections, seen.size()); i++) {
      exchanges.addAll(seen.get(i).exchanges());
    }
    List<String> header = new ArrayList<>(List.of(comments));
    header.add(
        "Captured by TranscriptCaptureIT through TranscriptProxy (which terminates TLS); format: see Transcript.java.");
    Transcript transcript = new Transcript(name, header, exchanges);
    Path file =
        Path.of(
            System.getProperty("binlogrelay.repo", "."),
            "src/test/resources/transcripts",
            name + ".txt");
    transcript.write(file);
  }
}
