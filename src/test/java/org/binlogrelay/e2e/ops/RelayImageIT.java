package org.binlogrelay.e2e.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay's image (docker/Dockerfile, built as {@code binlog-relay:ci} by
 * scripts/docker/build-images) in a real engine, through the Docker CLI: on a network of its own, a
 * MySQL 9.7 primary container ({@code binlog-relay-ci/mysql:9.7}) and the relay container following
 * it. The relay runs as the image's non-root user (uid 10001), the image's HEALTHCHECK turns {@code
 * healthy}, the relay holds the primary's transactions, and {@code docker stop} (SIGTERM) ends it
 * cleanly: exit code 0 and the relay's "relay closed: stopped" line. A missing engine or image
 * fails the test. The images are overridable with {@code -Dbinlogrelay.relayImage} and {@code
 * -Dbinlogrelay.mysqlImage} (the official mysql image honours the same contract).
 *
 * <p>Tagged {@code docker}: scripts/test-all runs it in its docker stage, after the images are
 * built. Containers and the network carry a name of their own and are removed at the end, passed or
 * failed. Not thread-safe (JUnit runs its methods one at a time).
 */
@Tag("docker")
class RelayImageIT {
  private static final String RELAY_IMAGE =
      System.getProperty("binlogrelay.relayImage", "binlog-relay:ci");
  private static final String MYSQL_IMAGE =
      System.getProperty("binlogrelay.mysqlImage", "binlog-relay-ci/mysql:9.7");

  /** Bound on one docker command; generous, never a timing assertion. */
  private static final Duration COMMAND_BOUND = Duration.ofMinutes(2);

  /** Bound on a wait for a container (a server's first start, a health check's turn). */
  private static final Duration WAIT_BOUND = Duration.ofMinutes(3);

  private static final String ROOT_PASSWORD = "image-it-root";
  private static final String REPL_PASSWORD = "image-it-repl";
  private static final AtomicLong OUTPUTS = new AtomicLong();
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** Names this test created, removed after it. */
  private final String prefix = "binlog-relay-it-image-" + Long.toHexString(System.nanoTime());

  private final String network = prefix + "-net";
  private final String primary = prefix + "-primary";
  private final String relay = prefix + "-relay";

  @AfterEach
  void removeContainers() {
    // -v: the anonymous volumes of the images' VOLUME lines go with their containers.
    docker(List.of("rm", "-f", "-v", relay, primary));
    docker(List.of("network", "rm", network));
  }

  @Test
  void runsAsNonRootTurnsHealthyFollowingAPrimaryAndStopsCleanlyOnSigterm() throws Exception {
    requireImage(RELAY_IMAGE);
    requireImage(MYSQL_IMAGE);
    docker(List.of("network", "create", network)).requireSuccess("docker network create");

    docker(
            List.of(
                "run",
                "-d",
                "--name",
                primary,
                "--network",
                network,
                "--network-alias",
                "primary",
                "-e",
                "MYSQL_ROOT_PASSWORD=" + ROOT_PASSWORD,
                "-e",
                "MYSQL_INITDB_SKIP_TZINFO=1",
                MYSQL_IMAGE,
                "--server-id=1",
                "--gtid-mode=ON",
                "--enforce-gtid-consistency=ON",
                "--log-bin=binlog",
                "--binlog-format=ROW"))
        .requireSuccess("starting the primary container");
    // Over TCP: the entrypoint's temporary server during initialisation listens on its socket only.
    eventually(
        WAIT_BOUND,
        "the primary container answering SQL over TCP",
        () -> {
          CommandResult select = sql("SELECT 1");
          if (select.exitCode() != 0 && !running(primary)) {
            throw new AssertionError("the primary container exited:\n" + logs(primary));
          }
          return select.exitCode() == 0;
        });
    sql("CREATE USER 'repl'@'%' IDENTIFIED BY '"
            + REPL_PASSWORD
            + "'; GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%';"
            + " CREATE DATABASE image_it; CREATE TABLE image_it.t (id INT PRIMARY KEY);"
            + " INSERT INTO image_it.t VALUES (1), (2), (3)")
        .requireSuccess("making the replication account and a table on the primary");
    String primaryGtids = sql("SELECT @@GLOBAL.gtid_executed").requireSuccess("gtid").output();
    primaryGtids = lastLine(primaryGtids).replace("\\n", "");

    // The password as a secret file, readable by the container's user (bind-mounted alone).
    Path password = dir.resolve("primary-password");
    Files.writeString(password, REPL_PASSWORD + "\n");
    Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-r--r--"));
    docker(
            List.of(
                "run",
                "-d",
                "--name",
                relay,
                "--network",
                network,
                "-v",
                password + ":/run/secrets/primary-password:ro",
                "-e",
                "BINLOG_RELAY_SOURCE=mysql://repl@primary:3306",
                "-e",
                "BINLOG_RELAY_PRIMARY_PASSWORD_FILE=/run/secrets/primary-password",
                "-e",
                "BINLOG_RELAY_SERVER_ID=100",
                "-e",
                "JAVA_OPTS=-Xmx256m -XX:+ExitOnOutOfMemoryError",
                RELAY_IMAGE))
        .requireSuccess("starting the relay container");

    assertThat(lastLine(docker(List.of("exec", relay, "id", "-u")).output()))
        .as("the user of docker exec, the image's USER")
        .isEqualTo("10001");
    assertThat(docker(List.of("exec", relay, "cat", "/proc/1/status")).output())
        .as("PID 1, the relay's JVM after the entrypoint's exec, runs as uid 10001")
        .containsPattern("(?m)^Uid:\\s+10001\\s+10001\\s+10001\\s+10001$")
        .contains("Name:\tjava");

    String health =
        eventually(
            WAIT_BOUND,
            "the relay container's health check turning healthy",
            () -> {
              String status = inspect(relay, "{{.State.Health.Status}}");
              if (!running(relay)) {
                throw new AssertionError("the relay container exited:\n" + logs(relay));
              }
              return status;
            },
            status -> status.equals("healthy"));
    assertThat(health).isEqualTo("healthy");

    // Following: the relay streams from the primary and holds every transaction it executed.
    String expected = primaryGtids;
    JsonNode gtid =
        eventually(
            WAIT_BOUND,
            "the relay holding the primary's GTID set " + expected,
            () -> adminGet("/api/v1/gtid"),
            g -> g != null && expected.equals(g.path("executed").asText()));
    assertThat(gtid.path("flavor").asText()).isEqualTo("mysql");
    JsonNode upstream = adminGet("/api/v1/upstream");
    assertThat(upstream).as("the relay's upstream").isNotNull();
    assertThat(upstream.path("state").asText()).as(upstream.toString()).isEqualTo("STREAMING");
    assertThat(upstream.path("source").asText()).isEqualTo("primary:3306");

    // docker stop: SIGTERM to PID 1 (the JVM), SIGKILL only after 60 s.
    docker(List.of("stop", "-t", "60", relay)).requireSuccess("docker stop");
    String log = logs(relay);
    assertThat(inspect(relay, "{{.State.ExitCode}}")).as(log).isEqualTo("0");
    assertThat(inspect(relay, "{{.State.OOMKilled}}")).isEqualTo("false");
    assertThat(log).contains("relay running").contains("relay closed: stopped");
  }

  /** GET PATH on the relay's admin port inside its container (bash's /dev/tcp), as JSON. */
  private JsonNode adminGet(String path) throws IOException {
    String request =
        "exec 3<>/dev/tcp/127.0.0.1/9307 && printf 'GET "
            + path
            + " HTTP/1.0\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n' >&3 && cat <&3";
    CommandResult answer = docker(List.of("exec", relay, "bash", "-c", request));
    String text = answer.output();
    int body = text.indexOf("\r\n\r\n");
    // Not answering yet (exit code), or not 200: "not yet" to the caller's wait.
    if (answer.exitCode() != 0 || body < 0 || !text.matches("(?s)HTTP/1\\.\\d 200 .*")) {
      return null;
    }
    return JSON.readTree(text.substring(body + 4));
  }

  /** A statement on the primary over TCP with the mysql client in its container. */
  private CommandResult sql(String statement) {
    return docker(
        List.of(
            "exec",
            "-e",
            "MYSQL_PWD=" + ROOT_PASSWORD,
            primary,
            "mysql",
            "-h127.0.0.1",
            "-uroot",
            "--batch",
            "--skip-column-names",
            "-e",
            statement));
  }

  private boolean running(String container) {
    return inspect(container, "{{.State.Running}}").equals("true");
  }

  private String inspect(String container, String format) {
    return lastLine(
        docker(List.of("inspect", "-f", format, container))
            .requireSuccess("docker inspect " + container)
            .output());
  }

  private String logs(String container) {
    return docker(List.of("logs", container)).output();
  }

  private void requireImage(String image) {
    CommandResult inspect = docker(List.of("image", "inspect", "-f", "{{.Id}}", image));
    assertThat(inspect.exitCode())
        .as(
            "image "
                + image
                + " (scripts/docker/build-images builds it; needs a Docker engine):\n"
                + inspect.output())
        .isZero();
  }

  private CommandResult docker(List<String> arguments) {
    List<String> command = new ArrayList<>(List.of("docker"));
    command.addAll(arguments);
    return ChildProcesses.run(
        command,
        dir,
        dir.resolve("docker-" + OUTPUTS.incrementAndGet() + ".out"),
        null,
        COMMAND_BOUND);
  }

  private static String lastLine(String text) {
    String[] lines = text.strip().split("\n");
    return lines[lines.length - 1].strip();
  }
}
