package org.binlogrelay.e2e.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.server.downstream.Command;
import org.junit.jupiter.api.Test;

/**
 * The real clients on this machine against the relay's downstream server: MySQL 9.7's {@code mysql}
 * and {@code mysqlbinlog}, MariaDB Connector/C's {@code mariadb} and {@code mariadb-binlog},
 * mysql-connector-j 9.7 and mysql-binlog-connector-java. Each logs in with the auth paths it really
 * takes (TLS, RSA key exchange, auth switch, fast path) and gets the same answers and errors a real
 * server gives. No database server is needed.
 */
class DownstreamClientsIT {

  private static final String CANNOT_STREAM = "binlog-relay cannot stream binlogs yet";

  @Test
  void mysqlClientLogsInOverTlsOverRsaAndFromTheCache() {
    try (ReplicaServerUnderTest relay = ReplicaServerUnderTest.start(ServerFlavor.MYSQL)) {
      CommandResult tls =
          RealClients.mysql(
              relay.port(),
              "repl",
              "repl-pass",
              "-N",
              "-e",
              "SELECT @@version, CURRENT_USER(), @@global.gtid_mode, @@server_id; SHOW STATUS LIKE 'Ssl_version';"
                  + " SHOW STATUS LIKE 'x'; SELEC 1");
      // The session's own TLS in SHOW STATUS; a misspelt statement is the server's 1064, and the
      // client stops.
      assertThat(tls.output())
          .contains("9.7.4-binlog-relay\trepl@%\tON\t4000")
          .contains("Ssl_version\tTLSv1.3")
          .contains(
              "ERROR 1064 (42000) at line 1: You have an error in your SQL syntax; check the manual that"
                  + " corresponds to your MySQL server version for the right syntax to use near 'SELEC 1' at"
                  + " line 1");
      CommandResult rsa =
          RealClients.mysql(
              relay.port(),
              "sha",
              "sha-pass",
              "--ssl-mode=DISABLED",
              "--get-server-public-key",
              "-N",
              "-e",
              "SELECT USER()");
      assertThat(rsa.output()).contains("sha@127.0.0.1");
      CommandResult cached =
          RealClients.mysql(
              relay.port(), "sha", "sha-pass", "--ssl-mode=DISABLED", "-N", "-e", "SELECT 1");
      assertThat(cached.exitCode()).as("fast path, no key needed: " + cached.output()).isZero();
      CommandResult wrong = RealClients.mysql(relay.port(), "repl", "nope", "-e", "SELECT 1");
      assertThat(wrong.output())
          .contains(
              "ERROR 1045 (28000): Access denied for user 'repl'@'127.0.0.1' (using"
                  + " password: YES)");
    }
  }

  @Test
  void mysqlClientSeesMysqlsErrors() {
    try (ReplicaServerUnderTest relay = ReplicaServerUnderTest.start(ServerFlavor.MYSQL)) {
      CommandResult r =
          RealClients.mysqlScript(
              relay.port(),
              "norepl",
              "norepl-pass",
              "selec 1;\nSELECT @@nosuch;\nSHOW BINARY LOGS;\nSHOW MASTER STATUS;\nSET server_id = 3;\n"
                  + "SELECT @@session.server_id;\n");
      assertThat(r.output())
          .contains(
              "ERROR 1064 (42000) at line 1: You have an error in your SQL syntax; check the manual that"
                  + " corresponds to your MySQL server version for the right syntax to use near 'selec 1' at"
                  + " line 1")
          .contains("ERROR 1193 (HY000) at line 2: Unknown system variable 'nosuch'")
          .contains(
              "ERROR 1227 (42000) at line 3: Access denied; you need (at least one of) the SUPER,"
                  + " REPLICATION CLIENT privilege(s) for this operation")
          .contains(
              "ERROR 1064 (42000) at line 4: You have an error in your SQL syntax; check the manual that"
                  + " corresponds to your MySQL server version for the right syntax to use near 'MASTER STATUS'"
                  + " at line 1")
          .contains(
              "ERROR 1229 (HY000) at line 5: Variable 'server_id' is a GLOBAL variable and should be set"
                  + " with SET GLOBAL")
          .contains("ERROR 1238 (HY000) at line 6: Variable 'server_id' is a GLOBAL variable");
    }
  }

  @Test
  void mariadbClientAgainstBothFlavours() {
    try (ReplicaServerUnderTest mysql = ReplicaServerUnderTest.start(ServerFlavor.MYSQL)) {
      CommandResult tls =
          RealClients.mariadb(
              mysql.port(), "repl", "repl-pass", "-N", "-e", "SELECT CURRENT_USER()");
      assertThat(tls.output()).contains("repl@%");
      CommandResult rsa =
          RealClients.mariadb(mysql.port(), "sha", "sha-pass", "--ssl=0", "-N", "-e", "SELECT 1");
      assertThat(rsa.exitCode()).as(rsa.output()).isZero();
      CommandResult switched =
          RealClients.mariadb(mysql.port(), "nat", "nat-pass", "-N", "-e", "SELECT CURRENT_USER()");
      assertThat(switched.output()).contains("nat@%");
    }
    try (ReplicaServerUnderTest mariadb = ReplicaServerUnderTest.start(ServerFlavor.MARIADB)) {
      CommandResult r =
          RealClients.mariadbScript(
              mariadb.port(),
              "repl",
              "repl-pass",
              "SELECT @@version, @@gtid_domain_id;\nSHOW SLAVE HOSTS;\nSELEC 1;\n",
              "-N");
      assertThat(r.output())
          .contains("10.11.19-MariaDB-binlog-relay\t0")
          .contains(
              "ERROR 1227 (42000) at line 2: Access denied; you need (at least one of) the REPLICATION"
                  + " MASTER ADMIN privilege(s) for this operation")
          .contains(
              "corresponds to your MariaDB server version for the right syntax to use near 'SELEC 1'");
    }
  }

  @Test
  void mysqlbinlogReachesTheDumpInBothModes() {
    try (ReplicaServerUnderTest relay = ReplicaServerUnderTest.start(ServerFlavor.MYSQL)) {
      CommandResult files =
          RealClients.mysqlbinlog(
              relay.port(), "repl", "repl-pass", "--read-from-remote-server", "binlog.000001");
      assertThat(files.exitCode()).isNotZero();
      assertThat(files.output()).contains("Got error reading packet from server: " + CANNOT_STREAM);
      CommandResult gtids =
          RealClients.mysqlbinlog(
              relay.port(),
              "repl",
              "repl-pass",
              "--read-from-remote-source=BINLOG-DUMP-GTIDS",
              "binlog.000001");
      assertThat(gtids.output()).contains(CANNOT_STREAM);
      CommandResult denied =
          RealClients.mysqlbinlog(
              relay.port(), "norepl", "norepl-pass", "--read-from-remote-server", "binlog.000001");
      assertThat(denied.output())
          .contains(
              "Access denied; you need (at least one of) the REPLICATION SLAVE"
                  + " privilege(s) for this operation");
      assertThat(relay.dumps())
          .extracting(d -> d.request().command())
          .containsExactly(Command.COM_BINLOG_DUMP, Command.COM_BINLOG_DUMP_GTID);
      assertThat(relay.dumps().get(0).request().nonBlocking()).isTrue();
      assertThat(relay.dumps().get(0).request().binlogFile()).isEqualTo("binlog.000001");
    }
  }

  @Test
  void mariadbBinlogReachesTheDump() {
    try (ReplicaServerUnderTest relay = ReplicaServerUnderTest.start(ServerFlavor.MARIADB)) {
      CommandResult r =
          RealClients.mariadbBinlog(relay.port(), "repl", "repl-pass", "binlog.000001");
      assertThat(r.output()).contains(CANNOT_STREAM);
      assertThat(relay.dumps()).hasSize(1);
      assertThat(relay.dumps().get(0).request().position()).isEqualTo(4);
    }
  }

  @Test
  void connectorJWithAndWithoutTls() throws SQLException {
    try (ReplicaServerUnderTest relay = ReplicaServerUnderTest.start(ServerFlavor.MYSQL)) {
      for (String options :
          new String[] {"sslMode=DISABLED&allowPublicKeyRetrieval=true", "sslMode=REQUIRED"}) {
        try (Connection c =
                DriverManager.getConnection(
                    "jdbc:mysql://127.0.0.1:"
                        + relay.port()
                        + "/?"
                        + options
                        + "&connectTimeout=5000&socketTimeout=30000",
                    "repl",
                    "repl-pass");
            Statement s = c.createStatement()) {
          try (ResultSet rs = s.executeQuery("SELECT @@version, @@server_uuid")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("9.7.4-binlog-relay");
            assertThat(rs.getString(2)).isEqualTo("4e6c6179-0000-4000-8000-000000004000");
          }
          try (ResultSet rs = s.executeQuery("SHOW VARIABLES LIKE 'binlog_checksum'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString("Value")).isEqualTo("CRC32");
          }
          assertThatThrownBy(() -> s.executeQuery("SELECT * FROM t"))
              .isInstanceOfSatisfying(
                  SQLException.class,
                  e -> {
                    assertThat(e.getErrorCode())
                        .as("as MySQL: no database selected")
                        .isEqualTo(1046);
                    assertThat(e.getSQLState()).isEqualTo("3D000");
                  });
          assertThatThrownBy(() -> s.executeQuery("SELECT * FROM t WHERE"))
              .isInstanceOfSatisfying(
                  SQLException.class,
                  e -> {
                    assertThat(e.getErrorCode()).isEqualTo(1064);
                    assertThat(e.getSQLState()).isEqualTo("42000");
                  });
        }
      }
    }
  }

  @Test
  void binlogConnectorJavaReachesTheDumpOnBothFlavours() throws Exception {
    for (ServerFlavor flavor : ServerFlavor.values()) {
      try (ReplicaServerUnderTest relay = ReplicaServerUnderTest.start(flavor)) {
        BinaryLogClient client =
            new BinaryLogClient("127.0.0.1", relay.port(), "repl", "repl-pass");
        client.setServerId(4242);
        client.setKeepAlive(false);
        if (flavor == ServerFlavor.MYSQL) {
          client.setGtidSet("");
        } else {
          client.setBinlogFilename("binlog.000001");
          client.setBinlogPosition(4);
        }
        CompletableFuture<Exception> failure = new CompletableFuture<>();
        client.registerLifecycleListener(
            new BinaryLogClient.AbstractLifecycleListener() {
              @Override
              public void onCommunicationFailure(BinaryLogClient c, Exception e) {
                failure.complete(e);
              }
            });
        CompletableFuture.runAsync(
            () -> {
              try {
                client.connect();
              } catch (Exception e) {
                failure.complete(e);
              }
            });
        Exception e = failure.get(30, TimeUnit.SECONDS);
        client.disconnect();
        assertThat(e).as(flavor.name()).hasMessageContaining(CANNOT_STREAM);
        assertThat(relay.dumps()).hasSize(1);
        assertThat(relay.dumps().get(0).request().serverId()).isEqualTo(4242);
      }
    }
  }
}
