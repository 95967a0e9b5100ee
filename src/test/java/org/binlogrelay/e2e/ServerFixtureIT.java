package org.binlogrelay.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.servers.Topology;
import org.binlogrelay.e2e.servers.local.LocalServer;
import org.binlogrelay.e2e.servers.local.LocalServerBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Tests of the harness itself: cleanup, crash and restart, identities, failure messages. */
@ExtendWith(ServerFarmExtension.class)
class ServerFixtureIT {

  @ParameterizedTest(name = "{0}")
  @MethodSource("org.binlogrelay.e2e.servers.ServerVersion#local")
  void closingTheFarmKillsTheServerAndDeletesItsFiles(ServerVersion version) {
    DatabaseServer server;
    Optional<ProcessHandle> process = Optional.empty();
    Path directory = null;
    try (ServerFarm farm = ServerFarm.create()) {
      server = farm.start(ServerSpec.of(version).named("doomed"));
      server.execute("CREATE DATABASE doomed", "CREATE TABLE doomed.t (id INT PRIMARY KEY)");
      if (server instanceof LocalServer local) {
        process = local.processHandle();
        directory = local.directory();
        assertThat(process).isPresent();
        assertThat(directory).isDirectory();
      }
    }

    assertThat(server.isRunning()).isFalse();
    if (process.isPresent()) {
      long pid = process.get().pid();
      assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
          .as("server process " + pid)
          .isEmpty();
      assertThat(ChildProcesses.alive()).extracting(ProcessHandle::pid).doesNotContain(pid);
      assertThat(directory).doesNotExist();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("org.binlogrelay.e2e.servers.ServerVersion#local")
  void serverKilledWithSigkillRestartsOnItsDataDirectory(ServerVersion version, ServerFarm farm) {
    DatabaseServer server = farm.start(ServerSpec.of(version).named("crashy"));
    server.execute(
        "CREATE DATABASE crashy",
        "CREATE TABLE crashy.t (id INT PRIMARY KEY, v VARCHAR(20))",
        "INSERT INTO crashy.t VALUES (1, 'before'), (2, 'kill')");
    String gtidsBeforeKill = server.executedGtidSet();
    String portBefore = server.address().toString();

    server.kill();
    assertThat(server.isRunning()).isFalse();
    server.restart();

    assertThat(server.address()).hasToString(portBefore);
    assertThat(server.queryLong("SELECT COUNT(*) FROM crashy.t")).isEqualTo(2);
    assertThat(server.executedGtidSet()).isEqualTo(gtidsBeforeKill);
    server.execute("INSERT INTO crashy.t VALUES (3, 'after')");
    assertThat(server.executedGtidSet()).isNotEqualTo(gtidsBeforeKill);

    server.stop();
    assertThat(server.isRunning()).isFalse();
    server.start();
    assertThat(server.queryLong("SELECT COUNT(*) FROM crashy.t")).isEqualTo(3);
    assertThat(server.binlogDir()).isDirectoryContaining("glob:**/binlog.000003");
  }

  @Test
  void restartsWithAnotherBinlogBaseNameAndKeepsIt(ServerFarm farm) {
    DatabaseServer server = farm.start(ServerSpec.of(ServerFlavor.MYSQL).named("renamed"));
    server.execute("CREATE DATABASE renamed", "FLUSH BINARY LOGS");
    String gtids = server.executedGtidSet();

    server.restart(server.spec().withBinlogBaseName("newbase").withMaxBinlogSize(8192));

    assertThat(server.queryValue("SELECT @@log_bin_basename")).endsWith("/newbase");
    assertThat(server.queryLong("SELECT @@max_binlog_size")).isEqualTo(8192);
    assertThat(server.queryRows("SHOW BINARY LOGS"))
        .extracting(row -> row.get("Log_name"))
        .containsExactly("newbase.000001");
    assertThat(server.executedGtidSet()).as("GTIDs survive the new index").isEqualTo(gtids);
    assertThat(server.binlogDir())
        .isDirectoryContaining("glob:**/binlog.000002")
        .isDirectoryContaining("glob:**/newbase.index");

    server.restart();
    assertThat(server.queryRows("SHOW BINARY LOGS"))
        .extracting(row -> row.get("Log_name"))
        .as("a plain restart keeps the changed spec")
        .containsExactly("newbase.000001", "newbase.000002");
    assertThatThrownBy(() -> server.restart(server.spec().withServerId(999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("server_id");
    assertThat(server.isRunning()).as("a refused restart leaves the server running").isTrue();
  }

  @Test
  void copiesOfTheTemplateHaveTheirOwnIdentity(ServerFarm farm) {
    DatabaseServer first = farm.start(ServerSpec.of(ServerFlavor.MYSQL).named("twin"));
    DatabaseServer second = farm.start(ServerSpec.of(ServerFlavor.MYSQL).named("twin"));

    assertThat(first.name()).isNotEqualTo(second.name());
    assertThat(first.queryLong("SELECT @@server_id"))
        .isEqualTo(first.serverId())
        .isNotEqualTo(second.serverId());
    assertThat(first.queryValue("SELECT @@server_uuid"))
        .isNotEqualTo(second.queryValue("SELECT @@server_uuid"));
    assertThat(first.executedGtidSet()).as("a fresh server has executed nothing").isEmpty();
  }

  /** The Docker backend resets every new server this way; checked here on the local servers. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("org.binlogrelay.e2e.servers.ServerVersion#local")
  void resettingTheBinlogsLeavesNoGtidsAndOneBinlog(ServerVersion version, ServerFarm farm) {
    DatabaseServer server = farm.start(ServerSpec.of(version).named("reset"));
    server.execute("CREATE DATABASE reset", "FLUSH BINARY LOGS");
    assertThat(server.executedGtidSet()).isNotEmpty();

    server.execute(version.flavor().dialect().resetBinlogsStatement());

    assertThat(server.executedGtidSet()).isEmpty();
    assertThat(server.queryRows("SHOW BINARY LOGS"))
        .extracting(row -> row.get("Log_name"))
        .containsExactly("binlog.000001");
  }

  @MariadbSeriesTest
  void aServerOptionReachesTheServer(ServerVersion version, ServerFarm farm) {
    DatabaseServer server =
        farm.start(
            ServerSpec.of(version)
                .withMaxBinlogSize(8192)
                .withOptions("--binlog-row-image=MINIMAL"));

    assertThat(server.queryLong("SELECT @@max_binlog_size")).isEqualTo(8192);
    assertThat(server.queryValue("SELECT @@binlog_row_image")).isEqualTo("MINIMAL");
    assertThat(server.queryValue("SELECT @@binlog_format")).isEqualTo("ROW");
    assertThat(server.queryValue("SELECT @@binlog_checksum")).isEqualTo("CRC32");
  }

  @MariadbSeriesTest
  void aServerThatCannotStartFailsWithItsErrorLogAndLeavesNothingBehind(
      ServerVersion version, ServerFarm farm) {
    assertThatThrownBy(
            () ->
                farm.start(
                    ServerSpec.of(version).named("broken").withOptions("--no-such-option=1")))
        .isInstanceOf(ServerException.class)
        .hasMessageContaining("broken-")
        .hasMessageContaining("exited with code")
        .hasMessageContaining("unknown variable 'no-such-option=1'");
    assertThat(farm.servers()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("org.binlogrelay.e2e.servers.ServerVersion#local")
  void aBrokenReplicaFailsTheCatchUpAtOnceWithItsReplicationError(
      ServerVersion version, ServerFarm farm) {
    Topology topology = farm.startPrimaryWithReplicas(version, 1);
    DatabaseServer primary = topology.primary();
    DatabaseServer replica = topology.replicas().get(0);
    primary.execute("CREATE DATABASE clash", "CREATE TABLE clash.t (id INT PRIMARY KEY)");
    topology.awaitCaughtUp(Duration.ofSeconds(60));
    // A row only the replica has (not binlogged), then the same key from the primary: a
    // duplicate-key error
    // in the replica's applier on both flavours. (A DDL clash would not do: MariaDB replicas ignore
    // those.)
    replica.execute("SET SESSION sql_log_bin = 0", "INSERT INTO clash.t VALUES (1)");
    primary.execute("INSERT INTO clash.t VALUES (1)");
    long started = System.nanoTime();
    assertThatThrownBy(() -> topology.awaitCaughtUp(Duration.ofSeconds(60)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("its applier stopped with error 1062")
        .hasMessageContaining("Last_SQL_Error: ")
        .hasMessageContaining("Duplicate entry '1'");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
  }

  /**
   * Both MariaDB series run side by side, each the series asked for, at the defaults the harness
   * leaves alone: on 11.8 {@code binlog_legacy_event_pos=OFF} and {@code binlog_gtid_index=ON},
   * whose {@code binlog.NNNNNN.idx} files lie next to the binlogs but are no binlogs (not in the
   * index, not in SHOW BINARY LOGS).
   */
  @Test
  void theMariadbSeriesRunSideBySideAtTheirDefaults(ServerFarm farm) {
    DatabaseServer older =
        farm.start(ServerSpec.of(ServerVersion.MARIADB_10_11).named("lts-10-11"));
    DatabaseServer newer = farm.start(ServerSpec.of(ServerVersion.MARIADB_11_8).named("lts-11-8"));
    assertThat(older.queryValue("SELECT VERSION()")).startsWith("10.11.");
    assertThat(newer.queryValue("SELECT VERSION()")).startsWith("11.8.");
    assertThat(newer.queryValue("SELECT @@binlog_legacy_event_pos")).isEqualTo("0");
    assertThat(newer.queryValue("SELECT @@binlog_gtid_index")).isEqualTo("1");
    assertThat(newer.queryValue("SELECT @@binlog_format")).isEqualTo("ROW");
    assertThat(newer.queryValue("SELECT @@gtid_strict_mode")).isEqualTo("1");
    newer.execute(
        "CREATE DATABASE idx", "FLUSH BINARY LOGS", "CREATE TABLE idx.t (id INT PRIMARY KEY)");
    assertThat(newer.queryRows("SHOW BINARY LOGS"))
        .extracting(row -> row.get("Log_name"))
        .containsExactly("binlog.000001", "binlog.000002");
    assertThat(newer.binlogDir()).isDirectoryContaining("glob:**/binlog.000001.idx");
    assertThat(older.binlogDir()).isDirectoryNotContaining("glob:**/*.idx");
  }

  /** The local backend refuses a series it has not installed, and says what it has. */
  @Test
  void theLocalBackendRefusesASeriesItHasNot(ServerFarm farm) {
    if (!(farm.backend() instanceof LocalServerBackend)) {
      return; // the Docker backend runs any series
    }
    assertThatThrownBy(() -> farm.start(ServerSpec.of(ServerVersion.MYSQL_8_4)))
        .isInstanceOf(ServerException.class)
        .hasMessageContaining("The local backend has no MySQL 8.4")
        .hasMessageContaining("MariaDB 10.11, MariaDB 11.8")
        .hasMessageContaining("-Dservers=docker");
  }

  @Test
  void aMissingToolFailsWithTheProvisioningHint() {
    assertThatThrownBy(() -> Provisioning.executable("no-such-server-binary", "The Foo server"))
        .isInstanceOf(ServerException.class)
        .hasMessageContaining("The Foo server is not installed")
        .hasMessageContaining("provision-test-servers.sh");
  }
}
