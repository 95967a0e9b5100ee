package org.binlogrelay.e2e.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.storage.FileMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cases that broke other binlog servers, through a real primary, the relay and a real replica:
 * an event over 16 MiB (split into several packets from the primary to the relay and from the relay
 * to the replica), a 1 GiB transaction, GTID sequence numbers above 2^32, DDL, XA transactions
 * (two-phase, one-phase, rolled back after prepare), an empty transaction, MySQL's tagged GTIDs and
 * compressed transactions, and the primary rotating several times while the relay is down. After
 * each: the relay's files are the primary's byte for byte, the replica has the primary's GTIDs and
 * CHECKSUM TABLE values.
 */
@ExtendWith(ServerFarmExtension.class)
class EdgeCasesIT {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeCasesIT.class);
  private static final Duration CATCH_UP = Duration.ofMinutes(4);
  private static final long BIG_EVENT = 40L << 20;
  private static final long SEQ_ABOVE_2_32 = (1L << 32) + 1;

  /** A source UUID of made-up transactions (MySQL); its sequence numbers start above 2^32. */
  private static final String OTHER_UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

  @TempDir Path dir;

  @Test
  void mysqlEdgeCasesReachTheReplicaIntact(ServerFarm farm) throws Exception {
    edgeCases(farm, ServerVersion.MYSQL_9_7);
  }

  @MariadbSeriesTest
  void mariadbEdgeCasesReachTheReplicaIntact(ServerVersion version, ServerFarm farm)
      throws Exception {
    edgeCases(farm, version);
  }

  /**
   * One transaction of 1 GiB of rows (32 rows of 32 MiB), far beyond max_binlog_size, relayed
   * whole.
   */
  @Test
  void mysqlOneGibibyteTransaction(ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7)
                .named("primary")
                .withMaxBinlogSize(1 << 20)
                .withOptions("--max-allowed-packet=1G"));
    DatabaseServer replica =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7)
                .named("replica")
                .withOptions("--max-allowed-packet=1G"));
    primary.execute(
        "CREATE DATABASE edge", "CREATE TABLE edge.big (id INT PRIMARY KEY, b LONGBLOB)");
    try (ServingRelay relay = ServingRelay.follow(primary, dir.resolve("relay"))) {
      ReplicationLink.establish(
          replica,
          farm.backend().hostPortForServers(relay.port()),
          Credentials.REPLICATION,
          "relay");
      List<String> transaction = new ArrayList<>();
      transaction.add("BEGIN");
      for (int i = 0; i < 32; i++) {
        transaction.add(
            "INSERT INTO edge.big VALUES ("
                + i
                + ", REPEAT(CHAR("
                + (65 + i % 26)
                + "), "
                + (32 << 20)
                + "))");
      }
      transaction.add("COMMIT");
      long started = System.nanoTime();
      primary.execute(transaction.toArray(String[]::new));
      long committed = System.nanoTime();
      relay.awaitCaughtUp(CATCH_UP);
      long stored = System.nanoTime();
      Replicas.awaitExecuted(replica, primary.executedGtidSet(), CATCH_UP);
      long applied = System.nanoTime();
      FileMetadata biggest =
          relay.store().files().stream()
              .max((a, b) -> Long.compare(a.size(), b.size()))
              .orElseThrow();
      assertThat(biggest.size())
          .as("the file holding the 1 GiB transaction")
          .isGreaterThan(1L << 30);
      LOG.info(
          "FIGURE 1 GiB transaction: commit on the primary {} ms, stored by the relay {} ms later,"
              + " applied by the replica {} ms later; file {} of {} bytes",
          millis(started, committed),
          millis(committed, stored),
          millis(stored, applied),
          biggest.name(),
          biggest.size());
      assertSame(primary, replica, relay);
    }
  }

  private void edgeCases(ServerFarm farm, ServerVersion version) throws Exception {
    boolean mysql = version.flavor() == ServerFlavor.MYSQL;
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(version)
                .named("primary")
                .withMaxBinlogSize(1 << 20)
                .withOptions("--max-allowed-packet=1G"));
    DatabaseServer replica =
        farm.start(ServerSpec.of(version).named("replica").withOptions("--max-allowed-packet=1G"));
    primary.execute(
        "CREATE DATABASE edge",
        "CREATE TABLE edge.big (id INT PRIMARY KEY, b LONGBLOB)",
        "CREATE TABLE edge.t (id INT PRIMARY KEY, v INT)",
        "ALTER TABLE edge.t ADD COLUMN w VARCHAR(20) DEFAULT 'x'",
        "CREATE TABLE edge.gone (id INT)",
        "DROP TABLE edge.gone");
    Path store = dir.resolve("relay");
    try (ServingRelay relay = ServingRelay.follow(primary, store)) {
      // an event over 16 MiB: the primary sends it to the relay in several packets
      primary.execute("INSERT INTO edge.big VALUES (1, REPEAT('a', " + BIG_EVENT + "))");
      // GTID sequence numbers above 2^32, and an empty transaction (MySQL: how a GTID is skipped)
      if (mysql) {
        primary.execute(
            "SET gtid_next = '" + OTHER_UUID + ":" + SEQ_ABOVE_2_32 + "'",
            "INSERT INTO edge.t (id, v) VALUES (1, 1)",
            "SET gtid_next = '" + OTHER_UUID + ":" + (SEQ_ABOVE_2_32 + 1) + "'",
            "BEGIN",
            "COMMIT",
            "SET gtid_next = 'AUTOMATIC'");
        // a tagged GTID, and compressed transactions (Transaction_payload events), also a big one
        primary.execute(
            "SET gtid_next = 'AUTOMATIC:edge_tag'",
            "INSERT INTO edge.t (id, v) VALUES (3, 3)",
            "SET gtid_next = 'AUTOMATIC'",
            "SET SESSION binlog_transaction_compression = ON",
            "INSERT INTO edge.t (id, v) VALUES (4, 4)",
            "INSERT INTO edge.big VALUES (4, REPEAT('z', " + (20L << 20) + "))",
            "SET SESSION binlog_transaction_compression = OFF");
      } else {
        primary.execute(
            "SET gtid_seq_no = " + SEQ_ABOVE_2_32,
            "INSERT INTO edge.t (id, v) VALUES (1, 1)",
            "INSERT INTO edge.t (id, v) VALUES (2, 2)");
      }
      // XA: two-phase, one-phase, and rolled back after prepare
      primary.execute(
          "XA START 'x1'",
          "INSERT INTO edge.t (id, v) VALUES (10, 10)",
          "XA END 'x1'",
          "XA PREPARE 'x1'",
          "XA COMMIT 'x1'",
          "XA START 'x2'",
          "INSERT INTO edge.t (id, v) VALUES (11, 11)",
          "XA END 'x2'",
          "XA COMMIT 'x2' ONE PHASE",
          "XA START 'x3'",
          "INSERT INTO edge.t (id, v) VALUES (12, 12)",
          "XA END 'x3'",
          "XA PREPARE 'x3'",
          "XA ROLLBACK 'x3'");
      relay.awaitQuietAndCaughtUp(CATCH_UP);
    }
    // the primary rotates three times while the relay is down, with a big event in between
    primary.execute(
        "FLUSH BINARY LOGS",
        "INSERT INTO edge.t (id, v) VALUES (20, 20)",
        "FLUSH BINARY LOGS",
        "INSERT INTO edge.big VALUES (2, REPEAT('b', " + BIG_EVENT + "))",
        "FLUSH BINARY LOGS",
        "UPDATE edge.t SET w = 'after' WHERE id >= 10");
    try (ServingRelay relay = ServingRelay.follow(primary, store)) {
      HostAndPort at = farm.backend().hostPortForServers(relay.port());
      // the replica starts from nothing: it receives both big events from the relay, split into
      // packets
      ReplicationLink.establish(replica, at, Credentials.REPLICATION, "relay");
      primary.execute(
          "INSERT INTO edge.big VALUES (3, REPEAT('c', " + (17L << 20) + "))",
          "DELETE FROM edge.big WHERE id = 1");
      relay.awaitQuietAndCaughtUp(CATCH_UP);
      Replicas.awaitExecuted(replica, primary.executedGtidSet(), CATCH_UP);
      String gtids = relay.store().executedGtids().toString();
      LOG.info(
          "FIGURE {} edge cases: relay GTIDs {}, {} files",
          version,
          gtids,
          relay.store().files().size());
      if (mysql) {
        assertThat(gtids)
            .contains(OTHER_UUID + ":" + SEQ_ABOVE_2_32 + "-" + (SEQ_ABOVE_2_32 + 1))
            .contains(":edge_tag:1");
        assertThat(replica.queryLong("SELECT COUNT(*) FROM edge.t WHERE id IN (3, 4)"))
            .isEqualTo(2);
      } else {
        // domain 0 went on counting from 2^32 + 1
        assertThat(Long.parseLong(gtids.substring(gtids.lastIndexOf('-') + 1).strip()))
            .isGreaterThan(SEQ_ABOVE_2_32 + 1);
      }
      assertThat(replica.queryLong("SELECT COUNT(*) FROM edge.t WHERE id IN (10, 11, 12)"))
          .as("XA: committed two-phase and one-phase, not the rolled back one")
          .isEqualTo(2);
      assertThat(replica.queryLong("SELECT LENGTH(b) FROM edge.big WHERE id = 2"))
          .isEqualTo(BIG_EVENT);
      assertSame(primary, replica, relay);
    }
  }

  private static void assertSame(DatabaseServer primary, DatabaseServer replica, ServingRelay relay)
      throws Exception {
    assertThat(replica.executedGtidSet()).isEqualTo(primary.executedGtidSet());
    assertThat(TableChecksums.of(replica, "edge")).isEqualTo(TableChecksums.of(primary, "edge"));
    assertThat(ReplicaStatus.of(replica).lastIoErrno()).isZero();
    relay.awaitSettled(CATCH_UP);
    // every file exactly, the in-use flag included: the primary's active file has it set, and so
    // has its copy
    List<String> names = relay.store().files().stream().map(FileMetadata::name).toList();
    for (String name : names) {
      byte[] original = Files.readAllBytes(primary.binlogDir().resolve(name));
      byte[] copy = Files.readAllBytes(relay.store().directory().resolve(name));
      assertThat(copy.length).as(name + " size").isEqualTo(original.length);
      assertThat(Arrays.mismatch(copy, original)).as(name + " first differing byte").isEqualTo(-1);
    }
    LOG.info("FIGURE {} files byte-identical to the primary's: {}", names.size(), names);
  }

  private static long millis(long from, long to) {
    return (to - from) / 1_000_000;
  }
}
