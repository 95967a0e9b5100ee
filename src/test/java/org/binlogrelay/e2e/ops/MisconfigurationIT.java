package org.binlogrelay.e2e.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.server.RelayMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's jar as an operator starts it ({@code java -jar binlog-relay.jar}, configured by a
 * YAML file, the environment and flags), misconfigured the ways operators misconfigure it: a
 * misspelt key, a port out of range or taken, an unreachable source, a data directory that cannot
 * be written. Each ends the process at once with the exit status {@link RelayMain} documents and
 * one line naming the option and where it was set. Then a well-configured relay, started with
 * nothing but {@code --source URL} and JSON logs, follows a real MySQL 9.7 primary: every log line
 * parses as JSON, no line shows the password, and the number of lines does not grow with the
 * transactions.
 */
@ExtendWith(ServerFarmExtension.class)
class MisconfigurationIT {
  private static final Logger LOG = LoggerFactory.getLogger(MisconfigurationIT.class);
  private static final Duration BOUND = Duration.ofSeconds(90);

  @TempDir Path dir;

  @Test
  void aMisspeltKeyIsNamedWithFileAndLine() throws IOException {
    Path yaml =
        Files.writeString(
            dir.resolve("relay.yaml"), "flavor: mysql\nserver-id: 9\nsync-bin-log: 1\n");
    CommandResult result = relay(Map.of(), "--config", yaml.toString());
    assertOneLine(
        result,
        RelayMain.USAGE,
        "binlog-relay: "
            + yaml
            + ":3: unknown key 'sync-bin-log' (did you"
            + " mean 'sync-binlog'?)");
  }

  @Test
  void aPortOutOfRangeOrTakenIsNamed() throws IOException {
    CommandResult outOfRange =
        relay(
            Map.of("BINLOG_RELAY_PORT", "70000"),
            "--flavor",
            "mysql",
            "--data-dir",
            dir.resolve("data").toString());
    assertOneLine(
        outOfRange,
        RelayMain.USAGE,
        "binlog-relay: $BINLOG_RELAY_PORT: --port 70000 is outside" + " 0..65535");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      Path yaml =
          Files.writeString(dir.resolve("relay.yaml"), "flavor: mysql\nport: " + port + "\n");
      CommandResult result =
          relay(
              Map.of(), "--config", yaml.toString(), "--data-dir", dir.resolve("data").toString());
      assertOneLine(
          result,
          RelayMain.FAILED,
          "binlog-relay: cannot start: --port ("
              + yaml
              + ":2) "
              + port
              + ": 127.0.0.1:"
              + port
              + " is already in use");
    }
  }

  @Test
  void anUnreachableSourceIsNamed() throws IOException {
    int closed = freePort();
    CommandResult result =
        relay(
            Map.of("BINLOG_RELAY_SOURCE", "mysql://repl:Secret-1@127.0.0.1:" + closed),
            "--data-dir",
            dir.resolve("data").toString(),
            "--port",
            "0");
    assertOneLine(
        result,
        RelayMain.FAILED,
        "binlog-relay: cannot start: --primary ($BINLOG_RELAY_SOURCE)"
            + " 127.0.0.1:"
            + closed
            + ": unreachable: cannot connect to primary 127.0.0.1:"
            + closed
            + ": Connection refused");
    assertThat(result.output()).doesNotContain("Secret-1");
  }

  @Test
  void anUnwritableDataDirectoryIsNamed() throws IOException {
    Path file = Files.writeString(dir.resolve("not-a-directory"), "x");
    CommandResult result =
        relay(
            Map.of(),
            "--flavor",
            "mysql",
            "--port",
            "0",
            "--data-dir",
            file.resolve("data").toString());
    assertOneLine(
        result,
        RelayMain.FAILED,
        "binlog-relay: cannot start: --data-dir "
            + file.resolve("data")
            + ": not a directory ("
            + file
            + " is a file)");
  }

  @Test
  void aSourceUrlIsEnoughAndTheJsonLogHasOneLinePerStateChange(ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(64 * 1024));
    primary.execute(
        "CREATE DATABASE p",
        "CREATE TABLE p.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(200))");
    String user = primary.replicationCredentials().user();
    String password = primary.replicationCredentials().password();
    String source =
        "mysql://"
            + encode(user)
            + ":"
            + encode(password)
            + "@127.0.0.1:"
            + primary.address().port();
    Path dataDir = dir.resolve("relay-data");
    Path logFile = dir.resolve("relay.log");
    // No admin HTTP port: 9307 may be another relay's on this shared machine.
    List<String> command =
        new ArrayList<>(
            List.of(
                "env",
                "BINLOG_RELAY_LOG_FORMAT=json",
                "BINLOG_RELAY_DATA_DIR=" + dataDir,
                "BINLOG_RELAY_ADMIN_PORT=0"));
    command.addAll(java());
    command.addAll(List.of("--source", source, "--port", Integer.toString(freePort())));
    Process relay = ChildProcesses.start(command, dir, logFile, null);
    try {
      awaitLine(relay, logFile, "relay running");
      for (int batch = 0; batch < 10; batch++) {
        List<String> inserts = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          inserts.add("INSERT INTO p.t (v) VALUES ('" + "x".repeat(150) + "')");
        }
        primary.execute(inserts.toArray(String[]::new));
      }
      primary.execute("FLUSH BINARY LOGS");
      awaitCaughtUp(primary, dataDir, relay, logFile);
    } finally {
      relay.destroy();
      if (!relay.waitFor(60, TimeUnit.SECONDS)) {
        ChildProcesses.kill(relay);
      }
    }
    assertThat(relay.exitValue()).as(Tails.of(logFile, 30)).isEqualTo(RelayMain.OK);
    List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
    List<String> messages = new ArrayList<>();
    for (String line : lines) {
      Map<String, String> fields = jsonFields(line);
      assertThat(fields)
          .as(line)
          .containsKeys("timestamp", "level", "loggerName", "formattedMessage");
      messages.add(fields.get("level") + " " + fields.get("formattedMessage"));
    }
    LOG.info(
        "the relay's log for 500 transactions and {} files ({} lines):\n  {}",
        storedFiles(dataDir).size(),
        lines.size(),
        String.join("\n  ", messages));
    assertThat(String.join("\n", lines))
        .doesNotContain(password)
        .contains("no --server-id: using ")
        .contains("relay running")
        .contains("relay closed: stopped");
    assertThat(lines.size())
        .as("one line per state change, not per event or transaction (500 written)")
        .isLessThan(40);
    assertThat(messages).noneMatch(m -> m.startsWith("ERROR"));
  }

  /** Runs the relay's jar to its end (bounded), with {@code environment} added. */
  private CommandResult relay(Map<String, String> environment, String... args) {
    List<String> command = new ArrayList<>(List.of("env"));
    environment.forEach((k, v) -> command.add(k + "=" + v));
    command.addAll(java());
    command.addAll(List.of(args));
    return ChildProcesses.run(
        command, dir, dir.resolve("out-" + System.nanoTime() + ".log"), null, BOUND);
  }

  private static void assertOneLine(CommandResult result, int status, String message) {
    List<String> lines =
        result.output().lines().filter(l -> !l.startsWith("Run 'binlog-relay --help'")).toList();
    assertThat(result.exitCode()).as(result.output()).isEqualTo(status);
    assertThat(lines).as(result.output()).hasSize(1);
    assertThat(lines.get(0))
        .startsWith(message)
        .doesNotContain("Exception")
        .doesNotContain("\tat ");
    LOG.info("exit {}: {}", result.exitCode(), lines.get(0));
  }

  /**
   * {@code java -jar server/target/binlog-relay.jar} when the reactor resolved the server module to
   * its jar (its {@code lib/} is next to it), else {@code java -cp CLASSPATH RelayMain} over the
   * same classes.
   */
  private static List<String> java() {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    try {
      Path location =
          Path.of(RelayMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path jar =
          location.toString().endsWith(".jar")
              ? location
              : location.getParent().resolve("binlog-relay.jar");
      if (Files.isRegularFile(jar) && Files.isDirectory(jar.getParent().resolve("lib"))) {
        return List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString());
      }
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return List.of(
        java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", classpath, RelayMain.class.getName());
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static void awaitLine(Process relay, Path logFile, String text) throws Exception {
    try {
      eventually(
          BOUND,
          "'" + text + "' in the relay's log",
          () -> {
            boolean logged = Files.exists(logFile) && Files.readString(logFile).contains(text);
            if (!logged && !relay.isAlive()) {
              throw new AssertionError("the relay exited");
            }
            return logged;
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + Tails.of(logFile, 30), e);
    }
  }

  /** Waits until the relay stores every file of the primary, each as long as the primary's. */
  private static void awaitCaughtUp(
      DatabaseServer primary, Path dataDir, Process relay, Path logFile) throws Exception {
    try {
      eventually(
          BOUND,
          "the relay's files as the primary's [primary, relay]",
          () -> {
            List<Map<String, Long>> both =
                List.of(storedFiles(primary.binlogDir()), storedFiles(dataDir));
            if (!both.get(0).equals(both.get(1)) && !relay.isAlive()) {
              throw new AssertionError("the relay exited: [primary, relay] " + both);
            }
            return both;
          },
          both -> both.get(0).equals(both.get(1)));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + Tails.of(logFile, 30), e);
    }
  }

  private static Map<String, Long> storedFiles(Path binlogDir) throws IOException {
    Map<String, Long> sizes = new LinkedHashMap<>();
    Path index = binlogDir.resolve("binlog.index");
    if (!Files.exists(index)) {
      return sizes;
    }
    for (String line : Files.readAllLines(index, StandardCharsets.UTF_8)) {
      String name = Path.of(line.strip()).getFileName().toString();
      if (!name.isEmpty()) {
        Path file = binlogDir.resolve(name);
        sizes.put(name, Files.exists(file) ? Files.size(file) : -1L);
      }
    }
    return sizes;
  }

  /** The top-level scalar fields of a line that must be exactly one JSON object. */
  private static Map<String, String> jsonFields(String line) {
    Map<String, String> fields = new LinkedHashMap<>();
    try (JsonParser parser = new JsonFactory().createParser(line)) {
      assertThat(parser.nextToken()).as(line).isEqualTo(JsonToken.START_OBJECT);
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        if (parser.nextToken().isStructStart()) {
          parser.skipChildren();
        } else {
          fields.put(name, parser.getText());
        }
      }
      assertThat(parser.nextToken()).as("one object on the line: " + line).isNull();
    } catch (IOException e) {
      throw new UncheckedIOException("not a JSON line: " + line, e);
    }
    return fields;
  }
}
