package org.binlogrelay.e2e.downstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MySQL Connector/J (what Debezium's MySQL connector and most Java tools use, MariaDB included)
 * logs in to a relay of a real MariaDB 10.11 as it logs in to the primary: the relay's greeting
 * carries the "5.5.5-" prefix a 10.x server's greeting has, so the driver does not take the server
 * for a MySQL 8 and ask for {@code @@transaction_isolation}, which 10.11 lacks (error 1193). The
 * same statements then answer alike on both.
 */
@ExtendWith(ServerFarmExtension.class)
class ConnectorJOnMariadbRelayIT {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectorJOnMariadbRelayIT.class);

  @TempDir Path dir;

  private static String url(int port) {
    return "jdbc:mysql://127.0.0.1:"
        + port
        + "/?sslMode=PREFERRED&connectTimeout=5000&socketTimeout=60000";
  }

  @Test
  void mysqlConnectorJLogsInToARelayOfMariadb1011(ServerFarm farm) throws Exception {
    DatabaseServer primary = farm.start(ServerVersion.MARIADB_10_11, "primary");
    try (RelayInFront relay = RelayInFront.of(primary, dir);
        Connection p =
            DriverManager.getConnection(
                url(primary.address().port()),
                Credentials.TEST.user(),
                Credentials.TEST.password());
        Connection r =
            DriverManager.getConnection(
                url(relay.port()),
                Credentials.REPLICATION.user(),
                Credentials.REPLICATION.password())) {
      relay.awaitCaughtUp(Duration.ofMinutes(2));
      String primaryVersion = p.getMetaData().getDatabaseProductVersion();
      String relayVersion = r.getMetaData().getDatabaseProductVersion();
      LOG.info("MySQL Connector/J sees primary '{}', relay '{}'", primaryVersion, relayVersion);
      assertThat(r.getTransactionIsolation())
          .as("read through the variable 10.11 has")
          .isEqualTo(p.getTransactionIsolation());
      String version = SqlAnswer.of(p, "SELECT VERSION() AS v").value("v");
      assertThat(SqlAnswer.of(r, "SELECT VERSION() AS v").value("v"))
          .as("VERSION() has no 5.5.5- prefix")
          .startsWith(version.substring(0, version.indexOf('-')))
          .doesNotStartWith("5.5.5-");
      for (String sql :
          List.of(
              "SHOW MASTER STATUS",
              "SHOW BINARY LOGS",
              "SELECT @@global.gtid_binlog_pos",
              "SHOW GLOBAL VARIABLES LIKE 'binlog_format'",
              "SELECT @@tx_isolation")) {
        SqlAnswer onPrimary = SqlAnswer.of(p, sql);
        SqlAnswer onRelay = SqlAnswer.of(r, sql);
        LOG.info("primary: {}\n  relay: {}", onPrimary, onRelay);
        assertThat(onRelay.errorCode())
            .as("%s\nprimary: %s\nrelay: %s", sql, onPrimary, onRelay)
            .isEqualTo(onPrimary.errorCode())
            .isZero();
        assertThat(onRelay.columns()).as(sql).isEqualTo(onPrimary.columns());
        if (sql.equals("SHOW BINARY LOGS")) {
          assertThat(onPrimary.rows())
              .as("the relay's files are the primary's")
              .containsAll(onRelay.rows());
        } else {
          assertThat(onRelay.rows()).as(sql).isEqualTo(onPrimary.rows());
        }
      }
    }
  }
}
