package org.binlogrelay.e2e.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.binlogrelay.cli.Environment;
import org.binlogrelay.cli.Relayctl;
import org.binlogrelay.cli.Terminal;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ReplicationLink;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.protocol.auth.PasswordHashes;
import org.binlogrelay.server.RelayMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every relayctl command against a real relay: a MySQL 9.7 primary, the relay ({@link RelayMain} as
 * a child process with its admin API on a free port and a bearer token), a MySQL 9.7 replica
 * replicating from the relay by GTID, and a MySQL 9.7 standby replicating from the primary directly
 * (the target of {@code source change}). relayctl runs in this JVM as {@code main} would ({@link
 * Relayctl#commandLine}); each command's output and exit code are checked against what the servers
 * say. Bounded waits only.
 *
 * <p>Excluded in e2e/pom.xml until the server side of docs/admin-api.md is merged.
 */
@ExtendWith(ServerFarmExtension.class)
class RelayctlIT {
  private static final Logger LOG = LoggerFactory.getLogger(RelayctlIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "relayctl-it-token-7c2d";
  private static final long RELAY_SERVER_ID = 9301;
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** One relayctl run: exit code and both streams. */
  record Result(int code, String out, String err) {
    JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + this, e);
      }
    }

    Result ok() {
      assertThat(code).as(toString()).isEqualTo(Relayctl.OK);
      assertThat(err).as(toString()).isEmpty();
      return this;
    }

    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  @TempDir Path dir;

  private String adminUrl;
  private final Map<String, String> env = new HashMap<>();

  @Test
  void everyCommandAgainstARealRelay(ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(64 * 1024));
    DatabaseServer standby = farm.start(ServerVersion.MYSQL_9_7, "standby");
    DatabaseServer replica = farm.start(ServerVersion.MYSQL_9_7, "replica");
    String replHost =
        primary.queryValue(
            "SELECT host FROM mysql.user WHERE user = ?", primary.replicationCredentials().user());
    primary.execute(
        "GRANT RELOAD ON *.* TO '"
            + primary.replicationCredentials().user()
            + "'@'"
            + replHost
            + "'",
        "CREATE DATABASE p",
        "CREATE TABLE p.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(200))");
    write(primary, 200);
    ReplicationLink standbyLink = ReplicationLink.establish(standby, primary);

    Process relay = startRelay(primary);
    Path relayLog = dir.resolve("relay.log");
    try {
      // Unauthorized without the token, then every command with it.
      await(
          "the admin API",
          () -> relayctl("status").code() == Relayctl.UNAUTHORIZED,
          relay,
          relayLog);
      Result unauthorized = relayctl("status");
      assertThat(unauthorized.err()).startsWith("relayctl: unauthorized: ");
      env.put("RELAYCTL_TOKEN", TOKEN);
      await(
          "the upstream to stream",
          () ->
              relayctl("status", "--json")
                  .json()
                  .path("upstream")
                  .path("state")
                  .asText()
                  .equals("STREAMING"),
          relay,
          relayLog);

      Result status = relayctl("status").ok();
      assertThat(status.out())
          .contains("  Flavor:")
          .contains("mysql")
          .contains("  Server ID:        " + RELAY_SERVER_ID)
          .contains(
              "  Source:           " + primary.address().host() + ":" + primary.address().port())
          .contains("STREAMING");
      JsonNode statusJson = relayctl("status", "--json").ok().json();
      assertThat(statusJson.path("relay").path("serverId").asLong()).isEqualTo(RELAY_SERVER_ID);
      String replicaAddress = statusJson.path("relay").path("replicaAddress").asText();
      int replicaPort =
          Integer.parseInt(replicaAddress.substring(replicaAddress.lastIndexOf(':') + 1));

      // The replica follows the relay; gtid and binlogs agree with the primary.
      ReplicationLink link =
          ReplicationLink.establish(
              replica,
              farm.backend().hostPortForServers(replicaPort),
              Credentials.REPLICATION,
              "relay");
      link.awaitCaughtUp(primary, WAIT);
      await(
          "gtid to show the primary's GTIDs",
          () ->
              relayctl("gtid", "--json")
                  .json()
                  .path("executed")
                  .asText()
                  .replaceAll("\\s", "")
                  .equals(primary.executedGtidSet().replaceAll("\\s", "")),
          relay,
          relayLog);
      Result gtid = relayctl("gtid").ok();
      assertThat(gtid.out())
          .startsWith("  Flavor:    mysql\n")
          .contains(
              "  Executed:  " + primary.executedGtidSet().replaceAll("\\s", "").split(",")[0]);
      List<String> primaryFiles =
          primary.queryRows("SHOW BINARY LOGS").stream().map(r -> r.get("Log_name")).toList();
      Result binlogs = relayctl("binlogs").ok();
      assertThat(binlogs.out())
          .startsWith("NAME ")
          .contains("being written: " + primaryFiles.get(primaryFiles.size() - 1));
      for (String name : primaryFiles) {
        assertThat(binlogs.out()).contains("\n" + name + " ");
      }

      // replicas, replicas show, lag, lag --watch.
      JsonNode replicas =
          await(
              "the replica in the list",
              () -> relayctl("replicas", "--json").json(),
              list -> list.size() == 1,
              relay,
              relayLog);
      String id = replicas.get(0).path("id").asText();
      long replicaServerId = replica.queryLong("SELECT @@server_id");
      assertThat(replicas.get(0).path("serverId").asLong()).isEqualTo(replicaServerId);
      assertThat(relayctl("replicas").ok().out())
          .startsWith("ID  SERVER ID  HOST")
          .containsPattern("(?m)^" + id + " +" + replicaServerId + " ");
      assertThat(relayctl("replicas", "show", id).ok().out())
          .contains("  Server ID:      " + replicaServerId)
          .contains("  Mode:           gtid");
      Result lag = relayctl("lag").ok();
      assertThat(lag.out())
          .startsWith("HOP ")
          .containsPattern("(?m)^primary -> relay +STREAMING ")
          .contains("relay -> " + replicaServerId + " (");
      Result watch = relayctl("lag", "--watch", "--interval", "200ms", "--count", "2").ok();
      assertThat(watch.out().lines().filter(l -> l.startsWith("HOP "))).hasSize(2);
      assertThat(relayctl("replicas", "show", "999999").code()).isEqualTo(Relayctl.RELAY_ERROR);

      // Pause: the replica falls behind; resume: it catches up.
      assertThat(relayctl("replica", "pause", id).ok().out()).endsWith("is PAUSED\n");
      write(primary, 100);
      await(
          "bytes behind while paused",
          () -> relayctl("replicas", "show", id, "--json").json(),
          r -> r.path("bytesBehind").asLong() > 0 && r.path("state").asText().equals("PAUSED"),
          relay,
          relayLog);
      assertThat(relayctl("replica", "resume", id).ok().out()).doesNotEndWith("is PAUSED\n");
      link.awaitCaughtUp(primary, WAIT);

      // Kick: the replica reconnects by itself under a new ID.
      assertThat(relayctl("replica", "kick", id).ok().out())
          .isEqualTo("Disconnected replica " + id + ".\n");
      await(
          "the replica to reconnect",
          () -> relayctl("replicas", "--json").json(),
          list -> list.size() == 1 && !list.get(0).path("id").asText().equals(id),
          relay,
          relayLog);
      write(primary, 20);
      link.awaitCaughtUp(primary, WAIT);

      // Rotate, then purge what is before the new file.
      Result rotate = relayctl("rotate", "--json").ok();
      String rotatedTo = rotate.json().path("rotatedTo").asText();
      assertThat(primary.queryRows("SHOW BINARY LOG STATUS").get(0).get("File"))
          .isEqualTo(rotatedTo);
      write(primary, 10);
      link.awaitCaughtUp(primary, WAIT);
      assertThat(relayctl("purge", "--before", "2000-01-01").ok().out())
          .isEqualTo("Removed nothing.\n");
      JsonNode purged = relayctl("purge", "--to", rotatedTo, "--json").ok().json();
      List<String> removed = new ArrayList<>();
      purged.path("removed").forEach(n -> removed.add(n.asText()));
      assertThat(removed).isNotEmpty().doesNotContain(rotatedTo);
      JsonNode afterPurge = relayctl("binlogs", "--json").ok().json();
      List<String> left = new ArrayList<>();
      afterPurge.forEach(f -> left.add(f.path("name").asText()));
      assertThat(left).contains(rotatedTo).doesNotContainAnyElementsOf(removed);
      assertThat(relayctl("purge", "--to", "binlog.999999").code()).isEqualTo(Relayctl.RELAY_ERROR);

      // Source: stop, start, change to the standby.
      assertThat(relayctl("source", "stop").ok().out()).startsWith("upstream STOPPED");
      assertThat(relayctl("source", "--json").ok().json().path("state").asText())
          .isEqualTo("STOPPED");
      relayctl("source", "start").ok();
      await(
          "streaming after start",
          () -> relayctl("source", "--json").json().path("state").asText().equals("STREAMING"),
          relay,
          relayLog);
      standbyLink.awaitCaughtUp(primary, WAIT);
      relayctl(
              "source",
              "change",
              "--host",
              standby.address().host(),
              "--port",
              Integer.toString(standby.address().port()))
          .ok();
      await(
          "streaming from the standby",
          () -> relayctl("source", "--json").json(),
          u ->
              u.path("state").asText().equals("STREAMING")
                  && u.path("source").asText().endsWith(":" + standby.address().port()),
          relay,
          relayLog);
      write(primary, 10);
      link.awaitCaughtUp(primary, WAIT);

      // Usage errors and an unreachable relay.
      assertThat(relayctl("purge").code()).isEqualTo(Relayctl.USAGE);
      assertThat(relayctl("completion", "bash").ok().out()).contains("complete -F");
      LOG.info(
          "every relayctl command ran against the relay; last status:\n{}",
          relayctl("status").out());
    } finally {
      relay.destroy();
      if (!relay.waitFor(60, TimeUnit.SECONDS)) {
        ChildProcesses.kill(relay);
      }
    }
    assertThat(relay.exitValue()).as(Tails.of(relayLog, 30)).isEqualTo(RelayMain.OK);
    Result gone = relayctl("status");
    assertThat(gone.code()).isEqualTo(Relayctl.UNREACHABLE);
    assertThat(gone.err())
        .isEqualTo("relayctl: cannot reach the relay at " + adminUrl + ": connection refused\n");
  }

  private Process startRelay(DatabaseServer primary) throws IOException {
    Path passwordFile =
        Files.writeString(
            dir.resolve("primary-password"), primary.replicationCredentials().password() + "\n");
    Path accounts =
        Files.writeString(
            dir.resolve("accounts"),
            Credentials.REPLICATION.user()
                + "@% REPLICATION_SLAVE,REPLICATION_CLIENT "
                + PasswordHashes.cachingSha2(Credentials.REPLICATION.password())
                + "\n");
    Path tokenFile = Files.writeString(dir.resolve("admin-token"), TOKEN + "\n");
    Path key = dir.resolve("key.pem");
    Path cert = dir.resolve("cert.pem");
    ChildProcesses.run(
            List.of(
                Provisioning.executable("openssl", "openssl").toString(),
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                key.toString(),
                "-out",
                cert.toString(),
                "-days",
                "2",
                "-subj",
                "/CN=binlog-relay-relayctl-it"),
            dir,
            dir.resolve("openssl.out"),
            null,
            Duration.ofSeconds(60))
        .requireSuccess("openssl req -x509");
    int adminPort = freePort();
    adminUrl = "http://127.0.0.1:" + adminPort;
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command =
        List.of(
            java,
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            classpath,
            RelayMain.class.getName(),
            "--primary",
            primary.address().host() + ":" + primary.address().port(),
            "--primary-user",
            primary.replicationCredentials().user(),
            "--primary-password-file",
            passwordFile.toString(),
            "--server-id",
            Long.toString(RELAY_SERVER_ID),
            "--data-dir",
            dir.resolve("relay-data").toString(),
            "--port",
            "0",
            "--accounts-file",
            accounts.toString(),
            "--ssl-cert",
            cert.toString(),
            "--ssl-key",
            key.toString(),
            "--heartbeat-period",
            "500ms",
            "--admin-port",
            Integer.toString(adminPort),
            "--admin-token-file",
            tokenFile.toString());
    return ChildProcesses.start(command, dir, dir.resolve("relay.log"), null);
  }

  /** relayctl with {@code --url} of the relay under test and this test's environment variables. */
  private Result relayctl(String... args) {
    List<String> all = new ArrayList<>(List.of("--url", adminUrl));
    all.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Environment environment =
        new Environment(
            Map.copyOf(env),
            Terminal.fixed(false, 100),
            Clock.systemUTC(),
            Environment.system().pause());
    int code =
        Relayctl.commandLine(new Relayctl(environment), new PrintWriter(out), new PrintWriter(err))
            .execute(all.toArray(String[]::new));
    Result result = new Result(code, out.toString(), err.toString());
    LOG.debug("relayctl {} -> {}", String.join(" ", args), result);
    return result;
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private interface Probe {
    JsonNode get() throws Exception;
  }

  private static void await(String what, Check check, Process relay, Path log) throws Exception {
    await(
        what,
        () -> JSON.getNodeFactory().booleanNode(check.holds()),
        JsonNode::asBoolean,
        relay,
        log);
  }

  /** Polls {@code probe} until {@code done} holds (bounded by {@link #WAIT}); the last value. */
  private static JsonNode await(
      String what, Probe probe, Predicate<JsonNode> done, Process relay, Path log)
      throws Exception {
    try {
      return (JsonNode)
          eventually(
              WAIT,
              what,
              () -> {
                Object last;
                try {
                  last = probe.get();
                } catch (AssertionError notYet) {
                  last = notYet.getMessage();
                }
                if (!(last instanceof JsonNode node && done.test(node)) && !relay.isAlive()) {
                  throw new AssertionError(
                      "the relay exited with " + relay.exitValue() + " while waiting for " + what);
                }
                return last;
              },
              last -> last instanceof JsonNode node && done.test(node));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + Tails.of(log, 40), e);
    }
  }

  private static void write(DatabaseServer primary, int rows) {
    List<String> statements = new ArrayList<>();
    for (int i = 0; i < rows; i += 10) {
      StringBuilder sql = new StringBuilder("INSERT INTO p.t (v) VALUES ");
      for (int j = 0; j < 10; j++) {
        sql.append(j == 0 ? "" : ",").append("('").append("x".repeat(100 + j)).append("')");
      }
      statements.add(sql.toString());
    }
    primary.execute(statements.toArray(String[]::new));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
