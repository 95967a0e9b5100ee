package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may log in to the relay, with Connector/J as the client and a real MySQL 9.7 replica attached
 * meanwhile: an anonymous login (empty user, no password) and an unknown user get
 * ER_ACCESS_DENIED_ERROR 1045 with MySQL's wording; repeated wrong passwords from one host block it
 * (ER_HOST_IS_BLOCKED 1129, the right password included) after the configured number of failures;
 * the replica that was already attached keeps replicating throughout.
 */
@ExtendWith(ServerFarmExtension.class)
class LoginSecurityIT {
  private static final Logger LOG = LoggerFactory.getLogger(LoginSecurityIT.class);

  /** ReplicaServerConfig's default. */
  private static final int MAX_FAILED_LOGINS = 10;

  private static final Duration CATCH_UP = Duration.ofMinutes(2);

  @TempDir Path dir;

  @Test
  void anonymousUnknownAndBruteForcedLoginsAreRefusedWhileTheReplicaStreams(ServerFarm farm)
      throws Exception {
    DatabaseServer primary = farm.start(ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary"));
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    primary.execute("CREATE DATABASE sec", "CREATE TABLE sec.t (id INT PRIMARY KEY)");
    try (ServingRelay relay = ServingRelay.follow(primary, dir)) {
      ReplicationLink.establish(
          replica,
          farm.backend().hostPortForServers(relay.port()),
          Credentials.REPLICATION,
          "relay");
      Replicas.awaitExecuted(replica, primary.executedGtidSet(), CATCH_UP);
      String url =
          "jdbc:mysql://127.0.0.1:"
              + relay.port()
              + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true&connectTimeout=5000&socketTimeout=10000";

      SQLException anonymous = refused(url, "", "");
      assertThat(anonymous.getErrorCode()).isEqualTo(1045);
      assertThat(anonymous.getMessage())
          .contains("Access denied for user ''@'127.0.0.1' (using password: NO)");
      SQLException unknown = refused(url, "nobody", "secret");
      assertThat(unknown.getErrorCode()).isEqualTo(1045);
      assertThat(unknown.getMessage())
          .contains("Access denied for user 'nobody'@'127.0.0.1' (using password: YES)");

      // two failures so far; the rest of the allowance goes to wrong passwords of a real user
      List<Integer> codes = new ArrayList<>();
      for (int i = 0; i < MAX_FAILED_LOGINS + 2; i++) {
        codes.add(refused(url, "plain", "wrong-" + i).getErrorCode());
        primary.execute("INSERT INTO sec.t VALUES (" + i + ")");
      }
      LOG.info(
          "FIGURE error codes of {} wrong passwords after 2 refused logins: {}",
          codes.size(),
          codes);
      assertThat(codes.subList(0, MAX_FAILED_LOGINS - 2)).containsOnly(1045);
      assertThat(codes.get(codes.size() - 1)).isEqualTo(1129);
      SQLException blocked = refused(url, ServingRelay.PLAIN.user(), ServingRelay.PLAIN.password());
      assertThat(blocked.getErrorCode())
          .as("the right password from a blocked host")
          .isEqualTo(1129);
      assertThat(blocked.getMessage())
          .contains("Host '127.0.0.1' is blocked because of many connection errors");

      // the replica attached before the attempts kept its connection and its data
      Replicas.awaitExecuted(replica, primary.executedGtidSet(), CATCH_UP);
      assertThat(replica.queryLong("SELECT COUNT(*) FROM sec.t")).isEqualTo(MAX_FAILED_LOGINS + 2);
      assertThat(ReplicaStatus.of(replica).lastIoErrno()).isZero();
    }
  }

  private static SQLException refused(String url, String user, String password) {
    try (Connection c = DriverManager.getConnection(url, user, password)) {
      throw new AssertionError("logged in as '" + user + "'");
    } catch (SQLException e) {
      return e;
    }
  }
}
