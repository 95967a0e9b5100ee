package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.load.SysbenchResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.server.upstream.StartPosition;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Test side: the scenarios both flavours' ITs run, each against a fresh primary. */
final class UpstreamScenarios {
  private static final Logger LOG = LoggerFactory.getLogger(UpstreamScenarios.class);
  static final Duration CATCH_UP = Duration.ofMinutes(2);
  static final Duration CONNECT = Duration.ofSeconds(30);

  private UpstreamScenarios() {}

  static Sysbench load(DatabaseServer primary) {
    return Sysbench.against(primary).withTables(4).withTableSize(5_000).withThreads(2);
  }

  /** Follows sysbench prepare and a write load live; checks registration, bytes and GTIDs. */
  static UpstreamState followWriteLoad(
      DatabaseServer primary, Path dir, Duration load, int minFiles) throws Exception {
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir)) {
      relay.awaitStatus(UpstreamStatus.STREAMING, CONNECT);
      assertRegistered(primary, relay);

      Sysbench sysbench = load(primary);
      sysbench.prepare();
      long started = System.nanoTime();
      SysbenchResult run = sysbench.run(load);
      relay.awaitCaughtUp(CATCH_UP);
      double seconds = (System.nanoTime() - started) / 1e9;

      UpstreamState state = relay.state();
      LOG.info(
          "{}: followed sysbench live ({} transactions in {}): {}; over {} s: {} MB/s, {} events/s",
          primary,
          run.transactions(),
          load,
          state,
          String.format("%.1f", seconds),
          String.format("%.2f", state.bytesReceived() / seconds / 1e6),
          String.format("%.0f", state.eventsReceived() / seconds));
      assertThat(run.transactions()).isPositive();
      assertThat(state.status()).isEqualTo(UpstreamStatus.STREAMING);
      assertThat(state.connections()).as("one connection did it all").isEqualTo(1);
      assertThat(relay.store().files()).as("rotations").hasSizeGreaterThanOrEqualTo(minFiles);
      relay.assertIdenticalToPrimary();
      return state;
    }
  }

  /** The primary lists the relay among its replicas (COM_REGISTER_SLAVE). */
  static void assertRegistered(DatabaseServer primary, UpstreamUnderTest relay) {
    String statement =
        primary.flavor() == ServerFlavor.MYSQL ? "SHOW REPLICAS" : "SHOW SLAVE HOSTS";
    List<Map<String, String>> replicas = primary.queryRows(statement);
    LOG.info("{} on {}: {}", statement, primary, replicas);
    assertThat(replicas)
        .as(statement + " on the primary")
        .anySatisfy(
            r -> {
              assertThat(column(r, "Server_id"))
                  .isEqualTo(Long.toString(UpstreamUnderTest.RELAY_SERVER_ID));
              assertThat(column(r, "Host")).isEqualTo("127.0.0.1");
              assertThat(column(r, "Port")).isEqualTo("13306");
              if (primary.flavor() == ServerFlavor.MYSQL) {
                assertThat(column(r, "Replica_UUID"))
                    .isEqualTo(relay.config().replicaUuid().toString());
              }
            });
  }

  private static String column(Map<String, String> row, String name) {
    return row.entrySet().stream()
        .filter(e -> e.getKey().equalsIgnoreCase(name))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no column " + name + " in " + row));
  }

  /**
   * Under write load: the replicator is stopped and a new one started on the same store; then the
   * relay "restarts" (store closed and reopened, new replicator); then the primary kills the
   * relay's dump thread. Each time the relay resumes by itself where the store ends; at the end the
   * store is identical.
   */
  static void survivesStopsRestartsAndKills(DatabaseServer primary, Path dir) throws Exception {
    Sysbench sysbench = load(primary).withRate(300);
    sysbench.prepare();
    ExecutorService background = Executors.newSingleThreadExecutor();
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir)) {
      Future<SysbenchResult> run = background.submit(() -> sysbench.run(Duration.ofSeconds(16)));
      relay.awaitStatus(UpstreamStatus.STREAMING, CONNECT);

      awaitMoreEvents(relay, 300, "events under load before the stop");
      relay.stopReplicator();
      Position primaryAtStop = relay.primaryPosition();
      LOG.info("stopped the replicator mid-load at {}", relay.store().readableEnd());
      eventually(
          CONNECT,
          "the primary writing past " + primaryAtStop + " while the relay is stopped",
          relay::primaryPosition,
          p -> !p.equals(primaryAtStop));
      relay.startReplicator();
      relay.awaitState(
          s -> s.status() == UpstreamStatus.STREAMING && s.eventsReceived() > 100,
          "streaming again after a stop",
          CONNECT);

      awaitMoreEvents(relay, 300, "events under load before the restart");
      relay.restart();
      relay.awaitState(
          s -> s.status() == UpstreamStatus.STREAMING && s.eventsReceived() > 100,
          "streaming again after reopening the store",
          CONNECT);

      awaitMoreEvents(relay, 300, "events under load before the KILL");
      long before = relay.state().connections();
      List<String> killed = killDumpThreads(primary);
      assertThat(killed).as("the relay's dump thread in the processlist").hasSize(1);
      UpstreamState after =
          relay.awaitState(
              s -> s.connections() > before && s.status() == UpstreamStatus.STREAMING,
              "reconnected after KILL",
              CONNECT);
      LOG.info("reconnected by itself after KILL {}: {}", killed, after);
      assertThat(after.lastError()).as("the failure that caused the reconnection").isNotNull();

      SysbenchResult result = run.get(2, TimeUnit.MINUTES);
      assertThat(result.transactions()).isPositive();
      relay.awaitCaughtUp(CATCH_UP);
      relay.assertIdenticalToPrimary();
    } finally {
      background.shutdownNow();
    }
  }

  /**
   * The primary goes away and comes back: a clean restart (its file ends with STOP, the next file
   * follows) and, if {@code alsoKill}, a SIGKILL. The relay backs off while it is gone, reconnects
   * by itself, and the store still matches.
   */
  static void followsPrimaryRestarts(DatabaseServer primary, Path dir, boolean alsoKill)
      throws Exception {
    primary.execute(
        "CREATE DATABASE restarts", "CREATE TABLE restarts.t (id INT PRIMARY KEY, v INT)");
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir)) {
      Set<String> crashEnded = new HashSet<>();
      int id = 0;
      for (String how : alsoKill ? List.of("restart", "kill") : List.of("restart")) {
        for (int i = 0; i < 20; i++) {
          primary.execute("INSERT INTO restarts.t VALUES (" + ++id + ", " + i + ")");
        }
        relay.awaitCaughtUp(CATCH_UP);
        long before = relay.state().connections();
        if (how.equals("kill")) {
          crashEnded.add(relay.primaryPosition().file());
          primary.kill();
          primary.start();
        } else {
          primary.restart();
        }
        UpstreamState back =
            relay.awaitState(
                s -> s.connections() > before && s.status() == UpstreamStatus.STREAMING,
                "reconnected after the primary's " + how,
                CONNECT);
        LOG.info("reconnected after the primary's {}: {}", how, back);
      }
      for (int i = 0; i < 20; i++) {
        primary.execute("INSERT INTO restarts.t VALUES (" + ++id + ", " + i + ")");
      }
      relay.awaitCaughtUp(CATCH_UP);
      relay.assertIdenticalToPrimary(crashEnded);
      assertThat(relay.transitions())
          .extracting(UpstreamState::status)
          .contains(UpstreamStatus.BACKING_OFF);
    }
  }

  /** Kills the dump threads of the replication user; returns their ids. */
  static List<String> killDumpThreads(DatabaseServer primary) {
    List<String> ids =
        primary.queryRows("SHOW PROCESSLIST").stream()
            .filter(
                r ->
                    "repl".equals(r.get("User"))
                        && r.get("Command") != null
                        && r.get("Command").startsWith("Binlog Dump"))
            .map(r -> r.get("Id"))
            .toList();
    for (String id : ids) {
      primary.execute("KILL " + id);
    }
    return ids;
  }

  /**
   * The relay stops; the primary purges the file the relay must continue with; the restarted relay
   * stops in FAILED with the primary's error 1236, and does not retry.
   */
  static void stopsWhenThePrimaryPurgedWhatItNeeds(DatabaseServer primary, Path dir)
      throws Exception {
    primary.execute(
        "CREATE DATABASE purge_test",
        "CREATE TABLE purge_test.t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO purge_test.t VALUES (1, 1)");
    try (UpstreamUnderTest relay = UpstreamUnderTest.follow(primary, dir)) {
      relay.awaitCaughtUp(CATCH_UP);
      relay.stopReplicator();
      primary.execute(
          "FLUSH BINARY LOGS",
          "INSERT INTO purge_test.t VALUES (2, 2)",
          "FLUSH BINARY LOGS",
          "INSERT INTO purge_test.t VALUES (3, 3)",
          "FLUSH BINARY LOGS");
      purgeTo(primary, relay.primaryPosition().file());
      relay.startReplicator();
      UpstreamState failed = relay.awaitStatus(UpstreamStatus.FAILED, CONNECT);
      LOG.info("after the purge: {}", failed);
      assertThat(failed.lastError()).contains("error 1236");
      assertThat(failed.connections()).isZero();
    }
  }

  /**
   * {@code PURGE BINARY LOGS TO file}, repeated until SHOW BINARY LOGS begins with {@code file} (at
   * most 30 s). A server skips, with only a note, a file that a dump thread still reads (the
   * relay's, until the primary notices its connection closed: seen on MariaDB 11.8, which kept
   * binlog.000001) or that crash recovery may still need (seen on 10.11 and 11.8: "not purged
   * because it may be needed for crash recovery (XID)").
   */
  static void purgeTo(DatabaseServer primary, String file) throws InterruptedException {
    eventually(
        Duration.ofSeconds(30),
        primary
            + "'s binary logs beginning with "
            + file
            + " after PURGE BINARY LOGS"
            + " TO '"
            + file
            + "' (repeated)",
        () -> {
          primary.execute("PURGE BINARY LOGS TO '" + file + "'");
          List<String> left =
              primary.queryRows("SHOW BINARY LOGS").stream().map(r -> r.get("Log_name")).toList();
          if (!left.get(0).equals(file)) {
            LOG.info(
                "{} kept {} after PURGE BINARY LOGS TO '{}'; purging again", primary, left, file);
          }
          return left;
        },
        left -> left.get(0).equals(file));
  }

  /** Waits until the relay received {@code count} more events than now (the load is running). */
  static void awaitMoreEvents(UpstreamUnderTest relay, long count, String what)
      throws InterruptedException {
    long from = relay.state().eventsReceived();
    relay.awaitState(s -> s.eventsReceived() >= from + count, count + " more " + what, CATCH_UP);
  }

  /**
   * An empty store started from a GTID set begins with the file the primary picks for it; one
   * started at "current" begins with the primary's current file. Both then match the primary.
   */
  static void startsWhereConfigured(DatabaseServer primary, Path dir, String gtidsAfterFirstFile)
      throws Exception {
    try (UpstreamUnderTest relay =
        UpstreamUnderTest.follow(
            primary,
            dir.resolve("gtids"),
            b -> b.start(StartPosition.gtids(gtidsAfterFirstFile)))) {
      relay.awaitCaughtUp(CATCH_UP);
      List<String> files = relay.store().files().stream().map(FileMetadata::name).toList();
      LOG.info("started from GTIDs '{}': files {}", gtidsAfterFirstFile, files);
      assertThat(files.get(0)).isEqualTo("binlog.000002");
      relay.assertIdenticalToPrimary();
    }
    try (UpstreamUnderTest relay =
        UpstreamUnderTest.follow(
            primary, dir.resolve("current"), b -> b.start(StartPosition.current()))) {
      relay.awaitCaughtUp(CATCH_UP);
      List<String> files = relay.store().files().stream().map(FileMetadata::name).toList();
      assertThat(files).containsExactly(relay.primaryPosition().file());
      relay.assertIdenticalToPrimary();
    }
  }

  /** A relay configured with the primary's own server_id stops at once with a clear error. */
  static void refusesThePrimarysServerId(DatabaseServer primary, Path dir) throws Exception {
    try (UpstreamUnderTest relay =
        UpstreamUnderTest.follow(primary, dir, b -> b.serverId(primary.serverId()))) {
      UpstreamState failed = relay.awaitStatus(UpstreamStatus.FAILED, CONNECT);
      assertThat(failed.lastError())
          .contains("has server_id " + primary.serverId())
          .contains("same as the relay's");
      assertThat(relay.store().files()).isEmpty();
    }
  }
}
