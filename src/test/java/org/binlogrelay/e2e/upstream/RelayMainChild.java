package org.binlogrelay.e2e.upstream;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.binlogrelay.cli.Environment;
import org.binlogrelay.cli.Relayctl;
import org.binlogrelay.cli.Terminal;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.server.RelayMain;

/**
 * Test side: the whole relay ({@link RelayMain}) in a child JVM of the test classpath, following a
 * primary through {@code via} (a {@link FaultyProxy}), with its admin API on a free loopback port
 * and no token: its status JSON, {@code /health}, {@code /metrics}, upstream commands, relayctl run
 * in this JVM against it, and its log (the relay's own format, {@code yyyy-MM-dd HH:mm:ss.SSS LEVEL
 * [thread] Logger: message}). Polls are bounded.
 */
public final class RelayMainChild implements AutoCloseable {
  private static final Pattern ERROR_LINE =
      Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} ERROR .*");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long RELAY_SERVER_ID = 9401;

  private final Process process;
  private final Path log;
  private final String base;
  private final int port;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private RelayMainChild(Process process, Path log, String base, int port) {
    this.process = process;
    this.log = log;
    this.base = base;
    this.port = port;
  }

  /** One HTTP answer. */
  public record Answer(int code, String body) {
    public JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }
  }

  /** One relayctl run. */
  public record RelayctlRun(int code, String out, String err) {}

  /**
   * Starts the relay with an empty store in {@code dir/relay-data}, its primary's password in
   * {@code dir/primary-password} (the test's replication password), heartbeats every 500 ms.
   */
  static RelayMainChild start(DatabaseServer primary, HostAndPort via, Path dir)
      throws IOException {
    return start(primary, via, dir, dir.resolve("relay-data"), 0, List.of(), Map.of());
  }

  /**
   * Starts the relay on {@code dataDir} (empty or not), serving replicas on {@code port} ({@code
   * 0}: a port of its choosing), with {@code extraArgs} after the usual ones (e.g. {@code
   * --accounts-file}, {@code --archive ...}; a {@code --server-id} there replaces the default 9401,
   * for two relays on one primary) and {@code environment} added to the child's (e.g. {@code
   * AWS_ACCESS_KEY_ID}); its log goes to {@code dir/relay-N.log}, a new file per start.
   */
  public static RelayMainChild start(
      DatabaseServer primary,
      HostAndPort via,
      Path dir,
      Path dataDir,
      int port,
      List<String> extraArgs,
      Map<String, String> environment)
      throws IOException {
    Path passwordFile =
        Files.writeString(
            dir.resolve("primary-password"), primary.replicationCredentials().password() + "\n");
    int adminPort = freePort();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>();
    if (!environment.isEmpty()) {
      // env(1) execs the JVM: the process (and its pid) stays the relay's
      command.add("/usr/bin/env");
      environment.forEach((k, v) -> command.add(k + "=" + v));
    }
    // the relay's own logback.xml (a resource of the server module), not the test classpath's
    // logback-test.xml
    command.addAll(
        List.of(
            java,
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-Dlogback.configurationFile=logback.xml",
            "-cp",
            classpath,
            RelayMain.class.getName(),
            "--primary",
            via.host() + ":" + via.port(),
            "--primary-user",
            primary.replicationCredentials().user(),
            "--primary-password-file",
            passwordFile.toString(),
            "--data-dir",
            dataDir.toString(),
            "--port",
            Integer.toString(port),
            "--heartbeat-period",
            "500ms",
            "--admin-port",
            Integer.toString(adminPort)));
    if (!extraArgs.contains("--server-id")) {
      command.addAll(List.of("--server-id", Long.toString(RELAY_SERVER_ID)));
    }
    command.addAll(extraArgs);
    Path log = dir.resolve("relay.log");
    for (int n = 2; Files.exists(log); n++) {
      log = dir.resolve("relay-" + n + ".log");
    }
    Process p = ChildProcesses.start(command, dir, log, null);
    return new RelayMainChild(p, log, "http://127.0.0.1:" + adminPort, port);
  }

  /** The port replicas connect to, as given to {@link #start} (0 if the relay chose it). */
  public int port() {
    return port;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL (kill -9), and waits until the process is gone. */
  public void kill() {
    ChildProcesses.kill(process);
  }

  /** A POST with a JSON body. */
  public Answer post(String path, String json) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body());
  }

  public Answer get(String path) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body());
  }

  public Answer post(String path) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body());
  }

  /** {@code GET /api/v1/status}'s {@code upstream} part. */
  public JsonNode upstream() throws IOException, InterruptedException {
    Answer a = get("/api/v1/status");
    if (a.code() != 200) {
      throw new AssertionError("GET /api/v1/status answered " + a);
    }
    return a.json().path("upstream");
  }

  /** {@code GET /api/v1/status}'s {@code store} part. */
  public JsonNode store() throws IOException, InterruptedException {
    return get("/api/v1/status").json().path("store");
  }

  /**
   * The value of the sample of {@code /metrics} whose line starts with {@code series} (name and
   * labels).
   */
  public double metric(String series) throws IOException, InterruptedException {
    Answer a = get("/metrics");
    return a.body()
        .lines()
        .filter(l -> l.startsWith(series + " "))
        .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElseThrow(() -> new AssertionError(series + " missing from /metrics:\n" + a.body()));
  }

  /**
   * Polls the upstream part of the status until {@code done} holds (bounded by {@code limit}, not
   * before the admin API answers); the last value.
   */
  public JsonNode awaitUpstream(String what, Predicate<JsonNode> done, Duration limit)
      throws Exception {
    try {
      return (JsonNode)
          eventually(
              limit,
              what,
              () -> {
                if (!process.isAlive()) {
                  throw new AssertionError(
                      "the relay exited with "
                          + process.exitValue()
                          + " while waiting for "
                          + what);
                }
                try {
                  return upstream();
                } catch (ConnectException notUpYet) {
                  return notUpYet.toString();
                }
              },
              last -> last instanceof JsonNode u && done.test(u));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + Tails.of(log, 40), e);
    }
  }

  /** Runs relayctl in this JVM against this relay, as its {@code main} would. */
  public RelayctlRun relayctl(String... args) {
    List<String> all = new ArrayList<>(List.of("--url", base));
    all.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Environment environment =
        new Environment(
            Map.of(), Terminal.fixed(false, 100), Clock.systemUTC(), Environment.system().pause());
    int code =
        Relayctl.commandLine(new Relayctl(environment), new PrintWriter(out), new PrintWriter(err))
            .execute(all.toArray(String[]::new));
    return new RelayctlRun(code, out.toString(), err.toString());
  }

  /** The relay's ERROR lines so far (each log event's first line). */
  public List<String> errorLines() {
    try {
      return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
          .filter(l -> ERROR_LINE.matcher(l).matches())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The lines of the relay's log that contain {@code text}. */
  public List<String> logLines(String text) {
    try {
      return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
          .filter(l -> l.contains(text))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String logTail(int lines) {
    return Tails.of(log, lines);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** SIGTERM, then SIGKILL if it is still there after 60 s. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      ChildProcesses.kill(process);
    }
  }
}
