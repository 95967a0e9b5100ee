package org.binlogrelay.e2e.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.server.RelayMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * What of {@code docker/} can be checked without a Docker engine: the compose file and the
 * Prometheus and Grafana files parse and fit together (services, dependencies, secrets, mounted
 * files, the relay's variables name its options, Prometheus scrapes the relay with the token), and
 * the image's entrypoint and health check run outside the image: the entrypoint starts the built
 * jar with the container defaults and the demo's accounts file and stops it cleanly on SIGTERM; the
 * health check tells a 200 from a 404 and from a closed port. Building the image and running the
 * topology are not checked here: {@link ComposeDemoIT} runs the topology.
 */
class DockerFilesIT {
  private static final Duration BOUND = Duration.ofSeconds(90);

  /**
   * Files that other parts of the project write (the metrics work); mounted by the compose file.
   */
  private static final List<String> WRITTEN_ELSEWHERE = List.of("docs/grafana-dashboard.json");

  @TempDir Path dir;

  @Test
  @SuppressWarnings("unchecked")
  void theComposeFileHangsTogether() throws Exception {
    Path docker = repository().resolve("docker");
    Map<String, Object> compose = new Yaml().load(Files.readString(docker.resolve("compose.yaml")));
    Map<String, Map<String, Object>> services =
        (Map<String, Map<String, Object>>) compose.get("services");
    assertThat(services)
        .containsKeys("primary", "relay", "replica1", "replica2", "prometheus", "grafana");
    assertThat(compose)
        .as("no top-level name: docker-compose 1.29 rejects it (the project name is given with -p)")
        .doesNotContainKey("name");
    for (Map.Entry<String, Map<String, Object>> service : services.entrySet()) {
      Object image = service.getValue().get("image");
      if (image != null) {
        assertThat((String) image)
            .as(
                service.getKey()
                    + "'s image: a variable (ComposeDemoIT substitutes local images) whose default"
                    + " is the public image users pull")
            .matches("\\$\\{BINLOG_RELAY_DEMO_[A-Z]+_IMAGE:-[^}]+}")
            .doesNotContain("binlog-relay-ci");
      }
    }
    Map<String, Object> secrets = (Map<String, Object>) compose.get("secrets");
    Map<String, Object> volumes = (Map<String, Object>) compose.get("volumes");
    for (Map.Entry<String, Map<String, Object>> service : services.entrySet()) {
      Map<String, Object> s = service.getValue();
      assertThat(s.get("image") != null || s.get("build") != null)
          .as(service.getKey() + " has an image")
          .isTrue();
      Object dependsOn = s.get("depends_on");
      if (dependsOn != null) {
        List<String> targets =
            dependsOn instanceof Map<?, ?> m
                ? new ArrayList<>(((Map<String, Object>) m).keySet())
                : (List<String>) dependsOn;
        assertThat(services)
            .as(service.getKey() + " depends on")
            .containsKeys(targets.toArray(String[]::new));
      }
      for (Object secret : (List<Object>) s.getOrDefault("secrets", List.of())) {
        assertThat(secrets).as(service.getKey() + "'s secret").containsKey((String) secret);
      }
      for (Object volume : (List<Object>) s.getOrDefault("volumes", List.of())) {
        String source = ((String) volume).split(":")[0];
        if (source.startsWith(".")) {
          Path file = docker.resolve(source).normalize();
          String relative = repository().relativize(file).toString();
          if (!WRITTEN_ELSEWHERE.contains(relative)) {
            assertThat(file).as(service.getKey() + " mounts " + source).exists();
          }
        } else {
          assertThat(volumes).as(service.getKey() + "'s volume").containsKey(source);
        }
      }
    }
    for (Object secret : secrets.values()) {
      assertThat(docker.resolve((String) ((Map<String, Object>) secret).get("file")))
          .isRegularFile();
    }
    Map<String, Object> build = (Map<String, Object>) services.get("relay").get("build");
    assertThat(
            docker.resolve((String) build.get("context")).resolve((String) build.get("dockerfile")))
        .isRegularFile();

    // The relay's variables name options of this build, or the admin options of docs/admin-api.md.
    String help =
        run(
                List.of(
                    "env",
                    "BINLOG_RELAY_JAR=" + jar(),
                    "sh",
                    docker.resolve("entrypoint.sh").toString(),
                    "--help"),
                Map.of())
            .output();
    String adminApi = Files.readString(repository().resolve("docs/admin-api.md"));
    Map<String, Object> environment =
        (Map<String, Object>) services.get("relay").get("environment");
    for (String variable : environment.keySet()) {
      assertThat(variable).startsWith("BINLOG_RELAY_");
      String option =
          "--"
              + variable
                  .substring("BINLOG_RELAY_".length())
                  .toLowerCase(Locale.ROOT)
                  .replace('_', '-');
      assertThat(
              help.contains(option + "=")
                  || help.contains(option + " ")
                  || adminApi.contains("`" + option + "`"))
          .as(variable + " names " + option)
          .isTrue();
    }

    Map<String, Object> prometheus =
        new Yaml().load(Files.readString(docker.resolve("prometheus.yml")));
    Map<String, Object> job = ((List<Map<String, Object>>) prometheus.get("scrape_configs")).get(0);
    assertThat(job.get("metrics_path")).isEqualTo("/metrics");
    assertThat(((List<Map<String, Object>>) job.get("static_configs")).get(0).get("targets"))
        .isEqualTo(List.of("relay:9307"));
    assertThat(((Map<String, Object>) job.get("authorization")).get("credentials_file"))
        .isEqualTo("/run/secrets/admin-token");
    assertThat((List<Object>) services.get("prometheus").get("secrets")).contains("admin-token");

    Map<String, Object> dashboards =
        new Yaml()
            .load(
                Files.readString(
                    docker.resolve("grafana/provisioning/dashboards/binlog-relay.yml")));
    String path =
        (String)
            ((Map<String, Object>)
                    ((List<Map<String, Object>>) dashboards.get("providers")).get(0).get("options"))
                .get("path");
    assertThat((List<Object>) services.get("grafana").get("volumes"))
        .contains("../docs/grafana-dashboard.json:" + path + "/binlog-relay.json:ro");
    Map<String, Object> datasources =
        new Yaml()
            .load(
                Files.readString(
                    docker.resolve("grafana/provisioning/datasources/prometheus.yml")));
    assertThat(((List<Map<String, Object>>) datasources.get("datasources")).get(0).get("url"))
        .isEqualTo("http://prometheus:9090");
  }

  @Test
  void theEntrypointRunsTheJarWithTheContainerDefaults() throws Exception {
    Path docker = repository().resolve("docker");
    Path entrypoint = docker.resolve("entrypoint.sh");
    assertThat(
            run(
                    List.of("sh", entrypoint.toString(), "--version"),
                    Map.of("BINLOG_RELAY_JAR", jar().toString()))
                .output())
        .startsWith("binlog-relay ");
    assertThat(
            run(List.of("sh", entrypoint.toString(), "echo", "a command"), Map.of())
                .output()
                .strip())
        .isEqualTo("a command");

    int port = freePort();
    Path dataDir = dir.resolve("data");
    Path logFile = dir.resolve("relay.log");
    List<String> command =
        List.of(
            "env",
            "BINLOG_RELAY_JAR=" + jar(),
            "BINLOG_RELAY_DATA_DIR=" + dataDir,
            "BINLOG_RELAY_FLAVOR=mysql",
            "BINLOG_RELAY_PORT=" + port,
            "BINLOG_RELAY_SERVER_ID=100",
            "BINLOG_RELAY_ACCOUNTS_FILE=" + docker.resolve("demo/accounts"),
            "JAVA_OPTS=-Xmx128m",
            "BINLOG_RELAY_ADMIN_PORT=0", // 9307 may be another relay's on this shared machine
            "sh",
            entrypoint.toString());
    Process relay = ChildProcesses.start(command, dir, logFile, null);
    try {
      try {
        eventually(
            BOUND,
            "'relay running' in the relay's log",
            () -> {
              boolean running = read(logFile).contains("relay running");
              if (!running && !relay.isAlive()) {
                throw new AssertionError("the relay exited");
              }
              return running;
            });
      } catch (AssertionError e) {
        throw new AssertionError(
            "the relay did not start: " + e.getMessage() + "\n" + Tails.of(logFile, 30), e);
      }
    } finally {
      relay.destroy(); // SIGTERM to the shell's pid, which is java's after exec
      if (!relay.waitFor(60, TimeUnit.SECONDS)) {
        ChildProcesses.kill(relay);
      }
    }
    String text = read(logFile);
    assertThat(relay.exitValue()).as(text).isEqualTo(RelayMain.OK);
    assertThat(text)
        .as("bound to every address, the container default")
        .containsPattern("replicas on /(0\\.0\\.0\\.0|\\[0:0:0:0:0:0:0:0\\]):" + port)
        .contains("relay closed: stopped")
        .doesNotContain("accounts-file")
        .doesNotContain("ERROR");
    assertThat(dataDir).isDirectory();
  }

  @Test
  void theHealthCheckTellsAnAnswerFromNoAnswer() throws Exception {
    Path healthcheck = repository().resolve("docker/healthcheck.sh");
    int port = freePort();
    Path served = Files.createDirectories(dir.resolve("served"));
    Process http =
        ChildProcesses.start(
            List.of("python3", "-m", "http.server", "--bind", "127.0.0.1", Integer.toString(port)),
            served,
            dir.resolve("http.log"),
            null);
    try {
      CommandResult answer =
          eventually(
              BOUND,
              "python3 -m http.server listening",
              () -> health(healthcheck, port),
              a -> !a.output().contains("nothing listens"));
      assertThat(answer.exitCode()).isEqualTo(1);
      assertThat(answer.output().strip())
          .isEqualTo(
              "unhealthy: 127.0.0.1:" + port + "/health answered 'HTTP/1.0 404 File not found'");
      Files.writeString(served.resolve("health"), "{\"status\":\"UP\"}");
      CommandResult healthy = health(healthcheck, port);
      assertThat(healthy.exitCode()).as(healthy.output()).isZero();
    } finally {
      ChildProcesses.kill(http);
    }
    CommandResult closed = health(healthcheck, port);
    assertThat(closed.exitCode()).isEqualTo(1);
    assertThat(closed.output()).contains("unhealthy: nothing listens on 127.0.0.1:" + port);
  }

  private CommandResult health(Path healthcheck, int port) {
    return run(
        List.of("bash", healthcheck.toString()),
        Map.of("BINLOG_RELAY_ADMIN_PORT", Integer.toString(port)));
  }

  private CommandResult run(List<String> command, Map<String, String> environment) {
    List<String> full = new ArrayList<>(List.of("env"));
    environment.forEach((k, v) -> full.add(k + "=" + v));
    full.addAll(command);
    return ChildProcesses.run(
        full, dir, dir.resolve("out-" + System.nanoTime() + ".log"), null, BOUND);
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static Path repository() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("docker/compose.yaml"))) {
        return p;
      }
    }
    throw new IllegalStateException("no docker/compose.yaml above " + Path.of("").toAbsolutePath());
  }

  private static Path jar() throws URISyntaxException {
    Path location =
        Path.of(RelayMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path jar =
        location.toString().endsWith(".jar")
            ? location
            : location.getParent().resolve("binlog-relay.jar");
    assertThat(jar).as("the relay's jar (mvn package of server/)").isRegularFile();
    return jar;
  }
}
