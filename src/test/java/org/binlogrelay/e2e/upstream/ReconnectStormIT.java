package org.binlogrelay.e2e.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.binlogrelay.cli.Relayctl;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue #14: a failure that comes back on every connection must not become a reconnect storm. The
 * whole relay ({@link RelayMainChild}) follows a real primary through a {@link FaultyProxy}, which
 * counts the connections the primary saw:
 *
 * <ul>
 *   <li>MySQL 9.7 whose binlog no longer continues the store: the relay stopped, the primary wrote
 *       one more transaction, and its XID event's log_pos was moved by 8 bytes in the primary's
 *       (closed) file, CRC32 fixed. Each connection stores the transaction's first events, then the
 *       store refuses the XID (a gap), exactly the refusal of the issue. The relay must end FAILED
 *       after a handful of connections, with the reason in the admin status, {@code /health} DOWN,
 *       the state metric, relayctl status and one ERROR line; with the file restored, {@code
 *       relayctl source start} streams again;
 *   <li>MariaDB 10.11: dropped connections and a primary restart (transient) are ridden out
 *       quickly; then the relay's account gets another password (1045 on every connection): FAILED
 *       after a handful, and once the password is back, {@code relayctl source start} streams
 *       again.
 * </ul>
 */
@ExtendWith(ServerFarmExtension.class)
class ReconnectStormIT {
  private static final Logger LOG = LoggerFactory.getLogger(ReconnectStormIT.class);

  /**
   * Upper bound for the connections a deterministic failure may cost (the relay gives up after 5).
   */
  private static final int MAX_CONNECTIONS = 6;

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void mysqlPrimaryWhoseBinlogNoLongerContinuesTheStoreEndsFailedAfterAFewConnections(
      ServerFarm farm, @TempDir Path dir) throws Exception {
    DatabaseServer primary = farm.start(ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary"));
    primary.execute(
        "CREATE DATABASE storm",
        "CREATE TABLE storm.t (id INT PRIMARY KEY, v VARCHAR(40))",
        "INSERT INTO storm.t VALUES (1, 'one')");
    try (FaultyProxy proxy = new FaultyProxy(primary.address());
        RelayMainChild relay = RelayMainChild.start(primary, proxy.address(), dir)) {
      awaitCaughtUp(relay, primary);
      assertThat(relay.post("/api/v1/upstream/stop").code()).isEqualTo(200);
      Map<String, String> end = primaryPosition(primary);
      primary.execute("INSERT INTO storm.t VALUES (2, 'two')", "FLUSH BINARY LOGS");
      Path file = primary.binlogDir().resolve(end.get("File"));
      byte[] original = Files.readAllBytes(file);
      byte[] edited = original.clone();
      long xid = moveXidLogPos(edited, Long.parseLong(end.get("Position")), 8);
      Files.write(file, edited);
      LOG.info("moved the log_pos of the XID event at {} of {} by 8 bytes", xid, file);

      int before = proxy.connectionsAccepted();
      assertThat(relay.post("/api/v1/upstream/start").code()).isEqualTo(200);
      JsonNode failed =
          relay.awaitUpstream("FAILED", u -> u.path("state").asText().equals("FAILED"), WAIT);
      int connections = proxy.connectionsAccepted() - before;
      LOG.info(
          "STORM continuity: {} connections to the primary until FAILED: {}",
          connections,
          failed.path("lastError").asText());
      assertThat(connections).as("connections the primary saw").isBetween(2, MAX_CONNECTIONS);
      assertThat(failed.path("lastError").asText())
          .contains("XID event with log_pos")
          .contains("gap")
          .contains(
              "5 times in a row with the store at " + end.get("File") + ":" + end.get("Position"));
      assertFailedIsVisible(relay, proxy, "XID event", "continuity", connections);

      Files.write(file, original);
      RelayMainChild.RelayctlRun start = relay.relayctl("source", "start");
      assertThat(start.code()).as(start.toString()).isEqualTo(Relayctl.OK);
      awaitCaughtUp(relay, primary);
      assertThat(relay.get("/health").code()).isEqualTo(200);
      assertThat(relay.store().path("executedGtids").asText().replaceAll("\\s", ""))
          .isEqualTo(primary.executedGtidSet().replaceAll("\\s", ""));
    }
  }

  @MariadbSeriesTest
  void mariadbRidesOutTransientFaultsAndEndsFailedOnAWrongPassword(
      ServerVersion version, ServerFarm farm, @TempDir Path dir) throws Exception {
    DatabaseServer primary = farm.start(ServerSpec.of(version).named("primary"));
    primary.execute(
        "CREATE DATABASE storm", "CREATE TABLE storm.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)");
    try (FaultyProxy proxy = new FaultyProxy(primary.address());
        RelayMainChild relay = RelayMainChild.start(primary, proxy.address(), dir)) {
      awaitCaughtUp(relay, primary);

      // Transient: a dropped connection, three times, then a primary restart. Each is retried
      // quickly.
      List<String> figures = new ArrayList<>();
      for (int round = 1; round <= 3; round++) {
        figures.add(
            streamsAgainAfter("drop " + round, relay, proxy, proxy::drop, Duration.ofSeconds(10)));
        primary.execute("INSERT INTO storm.t (v) VALUES (" + round + ")");
        awaitCaughtUp(relay, primary);
      }
      figures.add(
          streamsAgainAfter(
              "primary restart", relay, proxy, primary::restart, Duration.ofSeconds(30)));
      primary.execute("INSERT INTO storm.t (v) VALUES (4)");
      awaitCaughtUp(relay, primary);
      LOG.info("TRANSIENT faults: {}", figures);
      assertThat(relay.errorLines()).as("no ERROR for transient faults").isEmpty();

      // Deterministic: the relay's account gets another password; the connection is cut.
      String user = primary.replicationCredentials().user();
      String host = primary.queryValue("SELECT host FROM mysql.user WHERE user = ?", user);
      primary.execute(
          "ALTER USER '" + user + "'@'" + host + "' IDENTIFIED BY 'not-the-relays-password'");
      int before = proxy.connectionsAccepted();
      proxy.drop();
      JsonNode failed =
          relay.awaitUpstream("FAILED", u -> u.path("state").asText().equals("FAILED"), WAIT);
      int connections = proxy.connectionsAccepted() - before;
      LOG.info(
          "STORM access denied: {} connections to the primary until FAILED: {}",
          connections,
          failed.path("lastError").asText());
      assertThat(connections).as("connections the primary saw").isBetween(2, MAX_CONNECTIONS);
      assertThat(failed.path("lastError").asText())
          .contains("error 1045")
          .contains("Access denied")
          .contains("times in a row");
      assertFailedIsVisible(relay, proxy, "error 1045", "primary_error", connections);

      primary.execute(
          "ALTER USER '"
              + user
              + "'@'"
              + host
              + "' IDENTIFIED BY '"
              + primary.replicationCredentials().password()
              + "'");
      RelayMainChild.RelayctlRun start = relay.relayctl("source", "start");
      assertThat(start.code()).as(start.toString()).isEqualTo(Relayctl.OK);
      primary.execute("INSERT INTO storm.t (v) VALUES (5)");
      awaitCaughtUp(relay, primary);
      assertThat(relay.get("/health").code()).isEqualTo(200);
    }
  }

  /**
   * FAILED as an operator sees it: the admin status, {@code /health} DOWN with the reason, the
   * state gauge and the errors counter, {@code relayctl status}, exactly one ERROR line; and no
   * more connections afterwards.
   */
  private static void assertFailedIsVisible(
      RelayMainChild relay, FaultyProxy proxy, String reason, String kind, int connections)
      throws Exception {
    RelayMainChild.Answer health = relay.get("/health");
    assertThat(health.code()).as(health.toString()).isEqualTo(503);
    assertThat(health.json().path("status").asText()).isEqualTo("DOWN");
    assertThat(health.json().path("reason").asText())
        .startsWith("the upstream FAILED: ")
        .contains(reason);
    assertThat(relay.metric("binlogrelay_upstream_state{state=\"failed\"}")).isEqualTo(1.0);
    assertThat(relay.metric("binlogrelay_upstream_state{state=\"backing_off\"}")).isEqualTo(0.0);
    assertThat(relay.metric("binlogrelay_upstream_errors_total{kind=\"" + kind + "\"}"))
        .as("failures of kind " + kind)
        .isGreaterThanOrEqualTo(connections);
    RelayMainChild.RelayctlRun status = relay.relayctl("status");
    assertThat(status.code()).as(status.toString()).isEqualTo(Relayctl.OK);
    assertThat(status.out()).containsPattern("State: +FAILED").contains(reason);
    List<String> errors = relay.errorLines();
    assertThat(errors).as("ERROR lines").hasSize(1);
    assertThat(errors.get(0))
        .contains("FAILED: ")
        .contains(reason)
        .contains("What to do: ")
        .contains("relayctl source start");
    LOG.info("the one ERROR line: {}", errors.get(0));
    int accepted = proxy.connectionsAccepted();
    Thread.sleep(2_000); // nothing may happen: an absence can only be checked over some time
    assertThat(relay.upstream().path("state").asText()).isEqualTo("FAILED");
    assertThat(proxy.connectionsAccepted()).as("connections after FAILED").isEqualTo(accepted);
  }

  /**
   * Applies {@code fault}, then polls until the relay streams on a new connection; the figure for
   * the log.
   */
  private static String streamsAgainAfter(
      String what, RelayMainChild relay, FaultyProxy proxy, Runnable fault, Duration limit)
      throws Exception {
    long connections = relay.upstream().path("connections").asLong();
    int accepted = proxy.connectionsAccepted();
    long started = System.nanoTime();
    fault.run();
    long faulted = System.nanoTime();
    JsonNode back =
        relay.awaitUpstream(
            "streaming again after " + what,
            u ->
                u.path("state").asText().equals("STREAMING")
                    && u.path("connections").asLong() > connections,
            limit);
    long done = System.nanoTime();
    String figure =
        String.format(
            "%s: streaming %.2f s after the fault was over (%.2f s after it began), %d"
                + " connection(s) to the primary, attempt %d, last error %s",
            what,
            (done - faulted) / 1e9,
            (done - started) / 1e9,
            proxy.connectionsAccepted() - accepted,
            back.path("attempt").asInt(),
            back.path("lastError").asText());
    LOG.info("FAULT {}", figure);
    assertThat(back.path("state").asText()).isEqualTo("STREAMING");
    return figure;
  }

  private static Map<String, String> primaryPosition(DatabaseServer primary) {
    return primary
        .queryRows(
            primary.flavor() == ServerFlavor.MYSQL
                ? "SHOW BINARY LOG STATUS"
                : "SHOW MASTER STATUS")
        .get(0);
  }

  /** Polls until the relay streams and its store's head is the primary's position. */
  private static void awaitCaughtUp(RelayMainChild relay, DatabaseServer primary) throws Exception {
    relay.awaitUpstream("streaming", u -> u.path("state").asText().equals("STREAMING"), WAIT);
    record Seen(Map<String, String> primary, JsonNode head, JsonNode upstream) {}
    try {
      eventually(
          WAIT,
          "the relay streaming at the primary's position",
          () -> new Seen(primaryPosition(primary), relay.store().path("head"), relay.upstream()),
          s ->
              s.upstream().path("state").asText().equals("STREAMING")
                  && s.head().path("file").asText().equals(s.primary().get("File"))
                  && s.head().path("position").asText().equals(s.primary().get("Position")));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + relay.logTail(30), e);
    }
  }

  /**
   * Moves the log_pos of the first XID event at or after {@code from} in a binlog file's bytes by
   * {@code by} and writes its CRC32 again, so that the event reads back clean but claims to end
   * elsewhere.
   *
   * @return the XID event's offset
   */
  static long moveXidLogPos(byte[] file, long from, int by) {
    int at = Math.toIntExact(from);
    while (at + EventHeader.SIZE <= file.length) {
      EventHeader h = EventHeader.parse(file, at);
      int size = Math.toIntExact(h.eventSize());
      if (h.type() == EventType.XID) {
        h.withLogPos(h.logPos() + by).encodeTo(file, at);
        CRC32 crc = new CRC32();
        crc.update(file, at, size - 4);
        long value = crc.getValue();
        for (int i = 0; i < 4; i++) {
          file[at + size - 4 + i] = (byte) (value >>> (8 * i));
        }
        return at;
      }
      at += size;
    }
    throw new AssertionError("no XID event after offset " + from);
  }
}
