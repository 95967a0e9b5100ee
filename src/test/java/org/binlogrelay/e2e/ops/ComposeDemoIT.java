package org.binlogrelay.e2e.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.process.Tails;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code docker/compose.yaml} brought up as a user brings it up, in a Docker engine: a MySQL 9.7
 * primary with its write load, the relay, two replicas of the relay and Prometheus (every service
 * but Grafana, for which no image can be built here). The project's local images stand in for the
 * public ones through the file's variables ({@code BINLOG_RELAY_DEMO_*_IMAGE}), the published ports
 * are ones the kernel picks on 127.0.0.1, and the project name is unique to the run.
 *
 * <p>It checks what the demo is for: both replicas receive the primary's rows through the relay;
 * every PromQL query of {@code docs/grafana-dashboard.json} (the {@code $instance} variable filled
 * as Grafana fills "All" from the variable's own {@code label_values} query) returns a series with
 * a number from that Prometheus; and once the load is stopped, both replicas have every GTID the
 * primary executed and the same CHECKSUM TABLE of {@code demo.events}. {@code down -v} removes the
 * containers, networks and volumes however the test ends.
 *
 * <p>System properties: {@code compose.command} (default {@code docker-compose}; {@code "docker
 * compose"} for the Compose v2 plugin), {@code compose.publicImages=true} to run with the file's
 * public images and build the relay (where a registry is reachable), and a property named after one
 * of the file's image variables ({@code -DBINLOG_RELAY_DEMO_RELAY_IMAGE=...}) for another local
 * image.
 */
@Tag("docker") // needs the engine and the local images: scripts/test-all's docker stage runs it
class ComposeDemoIT {
  private static final Logger LOG = LoggerFactory.getLogger(ComposeDemoIT.class);

  /** The local images of scripts/docker/build-images, by the compose file's variable. */
  private static final Map<String, String> LOCAL_IMAGES =
      Map.of(
          "BINLOG_RELAY_DEMO_MYSQL_IMAGE", "binlog-relay-ci/mysql:9.7",
          "BINLOG_RELAY_DEMO_PROMETHEUS_IMAGE", "binlog-relay-ci/prometheus:2",
          "BINLOG_RELAY_DEMO_RELAY_IMAGE", "binlog-relay:ci");

  /** Every service but grafana. */
  private static final List<String> SERVICES =
      List.of("primary", "load", "relay", "replica1", "replica2", "prometheus");

  private static final List<String> REPLICAS = List.of("replica1", "replica2");
  private static final String ROOT_PASSWORD = "demo-root-pass";
  private static final Duration UP = Duration.ofMinutes(8);
  private static final Duration BOUND = Duration.ofMinutes(3);
  private static final Duration COMMAND = Duration.ofMinutes(2);
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{?(\\w+)}?");

  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir Path dir;

  private Path repository;
  private String project;
  private List<String> compose;
  private Map<String, String> environment;

  @Test
  void theReplicasConvergeAndEveryDashboardQueryHasData() throws Exception {
    repository = repository();
    project =
        "compose-demo-it-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    compose = List.of(System.getProperty("compose.command", "docker-compose").split(" "));
    environment = new LinkedHashMap<>();
    boolean publicImages = Boolean.getBoolean("compose.publicImages");
    if (!publicImages) {
      LOCAL_IMAGES.forEach(
          (variable, image) -> environment.put(variable, System.getProperty(variable, image)));
      requireImages();
    }
    for (String port : List.of("RELAY", "ADMIN", "PROMETHEUS", "GRAFANA")) {
      environment.put("BINLOG_RELAY_DEMO_" + port + "_PORT", "0");
    }
    List<String> version = new ArrayList<>(compose);
    version.add("version");
    CommandResult installed = run(COMMAND, version);
    if (installed.exitCode() != 0) {
      throw new AssertionError(
          String.join(" ", compose)
              + " does not run: scripts/docker/start-engine installs Debian's docker-compose"
              + " (scripts/test-all runs it); -Dcompose.command=\"docker compose\" for the v2 plugin\n"
              + Tails.of(installed.outputFile(), 5));
    }
    LOG.info(
        "compose project {} with {}: {}",
        project,
        String.join(" ", compose),
        installed.output().lines().findFirst().orElse(""));
    boolean passed = false;
    try {
      List<String> up =
          new ArrayList<>(List.of("up", "-d", publicImages ? "--build" : "--no-build"));
      up.addAll(SERVICES);
      compose(UP, up).requireSuccess("compose up of docker/compose.yaml");
      checkTheDemo();
      passed = true;
    } finally {
      if (!passed) {
        LOG.error(
            "compose logs:\n{}",
            Tails.of(
                compose(COMMAND, List.of("logs", "--no-color", "--tail", "40")).outputFile(), 300));
      }
      CommandResult down =
          compose(UP, List.of("down", "-v", "--remove-orphans", "--timeout", "30"));
      if (passed) {
        down.requireSuccess("compose down -v");
      }
    }
  }

  private void checkTheDemo() throws Exception {
    Map<String, String> containers = new LinkedHashMap<>();
    for (String service : List.of("primary", "replica1", "replica2")) {
      containers.put(service, output(compose(COMMAND, List.of("ps", "-q", service))));
    }
    eventually(
        BOUND,
        () -> {
          for (String replica : REPLICAS) {
            assertThat(
                    Long.parseLong(
                        sql(containers.get(replica), "SELECT COUNT(*) FROM demo.events")))
                .as("rows %s received through the relay", replica)
                .isPositive();
          }
        });

    String address = output(compose(COMMAND, List.of("port", "prometheus", "9090")));
    URI prometheus = URI.create("http://" + address.lines().reduce((a, b) -> b).orElseThrow());
    assertThat(prometheus.getHost()).isEqualTo("127.0.0.1");
    checkTheDashboardQueries(prometheus);

    compose(COMMAND, List.of("stop", "load")).requireSuccess("compose stop load");
    String executed =
        sql(containers.get("primary"), "SELECT @@GLOBAL.gtid_executed").replace("\n", "");
    String checksum = sql(containers.get("primary"), "CHECKSUM TABLE demo.events");
    LOG.info("primary after the load: gtid_executed {}, {}", executed, checksum);
    for (String replica : REPLICAS) {
      eventually(
          BOUND,
          replica + " has every GTID of the primary (" + executed + ")",
          () ->
              sql(
                  containers.get(replica),
                  "SELECT GTID_SUBSET('" + executed + "', @@GLOBAL.gtid_executed)"),
          "1"::equals);
      assertThat(sql(containers.get(replica), "CHECKSUM TABLE demo.events"))
          .as("CHECKSUM TABLE demo.events on %s and on the primary", replica)
          .isEqualTo(checksum);
    }
  }

  /**
   * Every {@code expr} of the dashboard's panels, with its variables filled, returns at least one
   * series whose value is a number (not NaN) from the demo's Prometheus. Bounded: rates need two
   * scrapes, and the replicas' series appear when they connect.
   */
  private void checkTheDashboardQueries(URI prometheus) throws Exception {
    JsonNode dashboard = json.readTree(repository.resolve("docs/grafana-dashboard.json").toFile());
    List<String> expressions = new ArrayList<>();
    collectExpressions(dashboard.path("panels"), expressions);
    assertThat(expressions).as("PromQL queries of docs/grafana-dashboard.json").isNotEmpty();

    List<String> values = new ArrayList<>();
    eventually(
        BOUND,
        () -> {
          values.clear();
          get(prometheus.resolve(
                  "/api/v1/label/instance/values?match[]=" + encode("binlogrelay_store_files")))
              .forEach(v -> values.add(v.asText()));
          assertThat(values)
              .as("values of $instance: label_values(binlogrelay_store_files, instance)")
              .isNotEmpty();
        });
    Map<String, String> variables =
        Map.of(
            "instance",
                "(" + String.join("|", values.stream().map(ComposeDemoIT::regex).toList()) + ")",
            "__rate_interval", "1m",
            "__interval", "15s",
            "__range", "5m");

    for (String expression : expressions) {
      String query = substitute(expression, variables);
      JsonNode[] result = {null};
      eventually(
          BOUND,
          () -> {
            result[0] = get(prometheus.resolve("/api/v1/query?query=" + encode(query)));
            assertThat(hasANumber(result[0]))
                .as("a series with a number for the dashboard's %s: %s", query, result[0])
                .isTrue();
          });
      LOG.info("{} -> {}", query, result[0]);
    }
    LOG.info("all {} queries of the dashboard returned data", expressions.size());
  }

  private static void collectExpressions(JsonNode panels, List<String> into) {
    for (JsonNode panel : panels) {
      collectExpressions(panel.path("panels"), into);
      for (JsonNode target : panel.path("targets")) {
        if (target.hasNonNull("expr")) {
          into.add(target.get("expr").asText());
        }
      }
    }
  }

  /** The dashboard variables Grafana would fill; a variable not known here fails the test. */
  private static String substitute(String expression, Map<String, String> variables) {
    Matcher m = VARIABLE.matcher(expression);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value = variables.get(m.group(1));
      assertThat(value).as("a value for $%s in %s", m.group(1), expression).isNotNull();
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    return m.appendTail(out).toString();
  }

  /** A value regex-escaped inside a PromQL string, as Grafana escapes a multi-value variable. */
  private static String regex(String value) {
    return value.replaceAll("([\\\\.^$|?*+()\\[\\]{}])", "\\\\\\\\$1");
  }

  private static boolean hasANumber(JsonNode result) {
    for (JsonNode series : result) {
      String value = series.path("value").path(1).asText("NaN");
      if (!value.equalsIgnoreCase("NaN")) {
        return true;
      }
    }
    return false;
  }

  /** {@code data} (the result of a query) of a Prometheus API answer with status success. */
  private JsonNode get(URI uri) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(uri + ": " + response.body()).isEqualTo(200);
    JsonNode answer = json.readTree(response.body());
    assertThat(answer.path("status").asText()).as(response.body()).isEqualTo("success");
    JsonNode data = answer.path("data");
    return data.has("result") ? data.get("result") : data;
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  /** A statement run with the mysql client inside a MySQL container, as root: its output. */
  private String sql(String container, String statement) {
    CommandResult result =
        run(
            COMMAND,
            List.of(
                "docker",
                "exec",
                "-e",
                "MYSQL_PWD=" + ROOT_PASSWORD,
                container,
                "mysql",
                "-uroot",
                "-h127.0.0.1",
                "-N",
                "-B",
                "-e",
                statement));
    result.requireSuccess(statement);
    return result.output().strip();
  }

  private CommandResult compose(Duration bound, List<String> arguments) {
    List<String> command = new ArrayList<>(List.of("env"));
    environment.forEach((k, v) -> command.add(k + "=" + v));
    command.addAll(compose);
    command.addAll(
        List.of("-p", project, "-f", repository.resolve("docker/compose.yaml").toString()));
    command.addAll(arguments);
    return run(bound, command);
  }

  private CommandResult run(Duration bound, List<String> command) {
    return ChildProcesses.run(
        command, dir, dir.resolve("command-" + System.nanoTime() + ".log"), null, bound);
  }

  private static String output(CommandResult result) {
    return result.requireSuccess(String.join(" ", result.command())).output().strip();
  }

  /** The local images must exist: scripts/docker/build-images makes them (scripts/test-all). */
  private void requireImages() {
    for (String variable : LOCAL_IMAGES.keySet()) {
      String image = environment.get(variable);
      CommandResult inspect = run(COMMAND, List.of("docker", "image", "inspect", image));
      if (inspect.exitCode() != 0) {
        throw new AssertionError(
            "the image "
                + image
                + " is missing: scripts/docker/build-images builds it (scripts/test-all runs it); "
                + "or run with -Dcompose.publicImages=true where a registry is reachable\n"
                + Tails.of(inspect.outputFile(), 5));
      }
    }
  }

  private static Path repository() {
    String property = System.getProperty("binlogrelay.repo");
    if (property != null) {
      return Path.of(property).toAbsolutePath().normalize();
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("docker/compose.yaml"))) {
        return p;
      }
    }
    throw new IllegalStateException("no docker/compose.yaml above " + Path.of("").toAbsolutePath());
  }
}
