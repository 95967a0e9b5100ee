package org.binlogrelay.e2e.downstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.time.Duration;
import java.util.List;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.downstream.Command;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Real MySQL 9.7 and MariaDB 10.11 replicas pointed at the relay's downstream server, set up
 * exactly as they would be for a real primary (the harness's {@code CHANGE REPLICATION SOURCE} /
 * {@code CHANGE MASTER} statements). With no binlog stream behind it yet, the relay must carry a
 * replica through TLS, authentication, every query it asks and COM_REGISTER_SLAVE to its dump
 * request, and the replica must show the relay's refusal in {@code Last_IO_Error}. Wrong passwords
 * and missing privileges must fail the way they fail against a real server.
 */
@ExtendWith(ServerFarmExtension.class)
class DownstreamReplicaIT {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static DatabaseServer mysqlReplica;
  private static DatabaseServer mariadbReplica;
  private ReplicaServerUnderTest relay;

  @BeforeAll
  static void replicas(ServerFarm farm) {
    mysqlReplica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    mariadbReplica = farm.start(ServerVersion.MARIADB_10_11, "replica");
  }

  @AfterEach
  void detach() {
    for (DatabaseServer replica : List.of(mysqlReplica, mariadbReplica)) {
      if (replica.flavor() == ServerFlavor.MYSQL) {
        replica.execute("STOP REPLICA", "RESET REPLICA ALL");
      } else {
        replica.execute("STOP SLAVE", "RESET SLAVE ALL");
      }
    }
    if (relay != null) {
      relay.close();
    }
  }

  @Test
  void mysqlReplicaGetsAsFarAsTheDumpAndShowsTheRelaysError() {
    relay = ReplicaServerUnderTest.start(ServerFlavor.MYSQL);
    ReplicationLink.establish(mysqlReplica, relay.address(), Credentials.REPLICATION, "relay");
    ReplicaStatus status = awaitIoError(mysqlReplica);

    assertThat(status.lastIoErrno()).as(status.summary()).isEqualTo(13114);
    assertThat(status.lastIoError())
        .startsWith(
            "Got fatal error 1236 from source when reading data from binary log:"
                + " 'binlog-relay cannot stream binlogs yet")
        .contains("COM_BINLOG_DUMP_GTID from server_id " + mysqlReplica.serverId());
    assertThat(relay.dumps()).hasSize(1);
    ReplicaServerUnderTest.Dump dump = relay.dumps().get(0);
    assertThat(dump.request().command()).isEqualTo(Command.COM_BINLOG_DUMP_GTID);
    assertThat(dump.request().serverId()).isEqualTo(mysqlReplica.serverId());
    assertThat(dump.request().heartbeatV2()).isTrue();
    assertThat(dump.request().startGtids().flavor()).isEqualTo(GtidFlavor.MYSQL);
    assertThat(dump.request().startGtids().isEmpty())
        .as("a fresh replica has executed nothing")
        .isTrue();
    assertThat(dump.registration().serverId()).isEqualTo(mysqlReplica.serverId());
  }

  @Test
  void mariadbReplicaGetsAsFarAsTheDumpAndShowsTheRelaysError() {
    relay = ReplicaServerUnderTest.start(ServerFlavor.MARIADB);
    ReplicationLink.establish(mariadbReplica, relay.address(), Credentials.REPLICATION, "relay");
    ReplicaStatus status = awaitIoError(mariadbReplica);

    assertThat(status.lastIoErrno()).as(status.summary()).isEqualTo(1236);
    assertThat(status.lastIoError())
        .startsWith(
            "Got fatal error 1236 from master when reading data from binary log:"
                + " 'binlog-relay cannot stream binlogs yet")
        .contains("COM_BINLOG_DUMP from server_id " + mariadbReplica.serverId());
    assertThat(relay.dumps()).hasSize(1);
    ReplicaServerUnderTest.Dump dump = relay.dumps().get(0);
    assertThat(dump.request().command()).isEqualTo(Command.COM_BINLOG_DUMP);
    assertThat(dump.request().startGtids())
        .as("GTID position from @slave_connect_state")
        .isNotNull();
    assertThat(dump.request().startGtids().flavor()).isEqualTo(GtidFlavor.MARIADB);
    assertThat(dump.registration().serverId()).isEqualTo(mariadbReplica.serverId());
  }

  @Test
  void mysqlReplicaWithAWrongPasswordGetsAccessDenied() {
    relay = ReplicaServerUnderTest.start(ServerFlavor.MYSQL);
    ReplicationLink.establish(
        mysqlReplica, relay.address(), new Credentials("repl", "wrong"), "relay");
    ReplicaStatus status = awaitIoError(mysqlReplica);
    assertThat(status.lastIoErrno()).as(status.summary()).isEqualTo(1045);
    assertThat(status.lastIoError())
        .endsWith("Message: Access denied for user 'repl'@'127.0.0.1' (using password: YES)");
    assertThat(relay.dumps()).isEmpty();
  }

  @Test
  void mariadbReplicaWithAWrongPasswordGetsAccessDenied() {
    relay = ReplicaServerUnderTest.start(ServerFlavor.MARIADB);
    ReplicationLink.establish(
        mariadbReplica, relay.address(), new Credentials("repl", "wrong"), "relay");
    ReplicaStatus status = awaitIoError(mariadbReplica);
    assertThat(status.lastIoErrno()).as(status.summary()).isEqualTo(1045);
    assertThat(status.lastIoError())
        .endsWith("message: Access denied for user 'repl'@'127.0.0.1' (using password: YES)");
  }

  @Test
  void mysqlReplicaWithoutReplicationSlaveIsRefusedAtRegistrationAsByMysql() {
    relay = ReplicaServerUnderTest.start(ServerFlavor.MYSQL);
    ReplicationLink.establish(
        mysqlReplica, relay.address(), new Credentials("norepl", "norepl-pass"), "relay");
    ReplicaStatus status = awaitIoError(mysqlReplica);
    // What MySQL 9.7 itself answers (transcripts/mysql-9.7-replica-no-privilege.txt).
    assertThat(status.lastIoErrno()).as(status.summary()).isEqualTo(13120);
    assertThat(status.lastIoError())
        .isEqualTo(
            "Source command COM_REGISTER_REPLICA failed: Access denied for user"
                + " 'norepl'@'%' (using password: YES) (Errno: 1045)");
    assertThat(relay.dumps()).isEmpty();
  }

  @Test
  void mariadbReplicaWithoutReplicationSlaveIsRefusedAtRegistrationAsByMariadb() {
    relay = ReplicaServerUnderTest.start(ServerFlavor.MARIADB);
    ReplicationLink.establish(
        mariadbReplica, relay.address(), new Credentials("norepl", "norepl-pass"), "relay");
    ReplicaStatus status = awaitIoError(mariadbReplica);
    // What MariaDB 10.11 itself answers (transcripts/mariadb-10.11-replica-no-privilege.txt).
    assertThat(status.lastIoErrno()).as(status.summary()).isEqualTo(1597);
    assertThat(status.lastIoError())
        .isEqualTo(
            "Master command COM_REGISTER_SLAVE failed: Access denied for user"
                + " 'norepl'@'%' (using password: YES) (Errno: 1045)");
  }

  private static ReplicaStatus awaitIoError(DatabaseServer replica) {
    try {
      return eventually(
          WAIT,
          replica + " reporting an IO error",
          () -> ReplicaStatus.of(replica),
          status -> status.lastIoErrno() != 0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + replica.errorLogTail(30), e);
    }
  }
}
