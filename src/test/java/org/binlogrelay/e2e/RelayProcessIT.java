package org.binlogrelay.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import org.binlogrelay.protocol.auth.PasswordHashes;
import org.binlogrelay.server.RelayMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay as an operator runs it: {@code java ... org.binlogrelay.server.RelayMain --primary ...}
 * as a child process against a real MariaDB 10.11 primary, with the password in a file and an
 * accounts file. It stores the primary's files byte for byte, answers a client on its own port,
 * stops cleanly on SIGTERM with exit status 0, and after a restart continues where its store ended
 * (the files it had are untouched, the rest is fetched).
 */
@ExtendWith(ServerFarmExtension.class)
class RelayProcessIT {
  private static final Logger LOG = LoggerFactory.getLogger(RelayProcessIT.class);
  private static final long RELAY_SERVER_ID = 9101;
  private static final String RELAY_PASSWORD = "relay-pass";

  /**
   * The FORMAT_DESCRIPTION's flags byte, whose in-use bit the primary and the store clear at
   * different times.
   */
  private static final int IN_USE_FLAG_OFFSET = 4 + 17;

  private static final Duration CATCH_UP = Duration.ofSeconds(60);

  @Test
  void followsAPrimaryStopsOnSigtermAndResumesAfterARestart(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MARIADB_10_11)
                .named("primary")
                .withMaxBinlogSize(64 * 1024));
    primary.execute(
        "CREATE DATABASE p",
        "CREATE TABLE p.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(200))");
    write(primary, 300);
    primary.execute("FLUSH BINARY LOGS");
    write(primary, 100);

    Path dataDir = dir.resolve("relay-data");
    Path passwordFile =
        Files.writeString(
            dir.resolve("primary-password"), primary.replicationCredentials().password() + "\n");
    Path accounts =
        Files.writeString(
            dir.resolve("accounts"),
            "repl@% REPLICATION_SLAVE,REPLICATION_CLIENT "
                + PasswordHashes.nativePassword(RELAY_PASSWORD)
                + "\n");
    int port = freePort();
    List<String> command = command(primary, dataDir, passwordFile, accounts, port);

    // First run: copies the primary's files, answers a client, stops on SIGTERM.
    Path firstLog = dir.resolve("relay-1.log");
    Process relay = ChildProcesses.start(command, dir, firstLog, null);
    awaitCaughtUp(primary, dataDir, relay, firstLog);
    assertThat(relayQuery(port, "SELECT @@server_id", dir))
        .as("the relay answers on its own port")
        .isEqualTo(Long.toString(RELAY_SERVER_ID));
    assertServesFirstFile(primary, port, dir);
    StringBuilder listing = new StringBuilder();
    fileSizes(primary.binlogDir())
        .forEach(
            (name, size) ->
                listing
                    .append(listing.isEmpty() ? "" : "\n")
                    .append(name)
                    .append('\t')
                    .append(size));
    assertThat(relayQuery(port, "SHOW BINARY LOGS", dir))
        .as("SHOW BINARY LOGS on the relay")
        .isEqualTo(listing.toString());
    write(primary, 50);
    awaitCaughtUp(primary, dataDir, relay, firstLog);
    assertThat(stop(relay, firstLog))
        .as("exit status after SIGTERM\n" + Tails.of(firstLog, 30))
        .isEqualTo(RelayMain.OK);
    assertThat(Files.readString(firstLog))
        .contains("relay running: MariaDB relay")
        .contains("shutdown requested")
        .contains("relay closed: stopped")
        .doesNotContain("ERROR");
    Map<String, byte[]> before = storedFiles(dataDir);
    assertPrefixOfPrimary(primary, dataDir);
    LOG.info("first run stored {} files: {}", before.size(), before.keySet());

    // The primary moves on while the relay is down.
    write(primary, 200);
    primary.execute("FLUSH BINARY LOGS");
    write(primary, 100);

    // Second run: same command, resumes from the store's end.
    Path secondLog = dir.resolve("relay-2.log");
    Process again = ChildProcesses.start(command, dir, secondLog, null);
    awaitCaughtUp(primary, dataDir, again, secondLog);
    String second = Files.readString(secondLog);
    assertThat(second)
        .contains("learnt from the stored binlog files")
        .containsPattern("dump requested from binlog\\.\\d{6}:(?!4\\b)\\d+");
    for (Map.Entry<String, byte[]> file : before.entrySet()) {
      byte[] now = Files.readAllBytes(dataDir.resolve(file.getKey()));
      assertThat(prefixMismatch(masked(file.getValue()), masked(now)))
          .as("%s as the first run left it is a prefix of the file now", file.getKey())
          .isEqualTo(-1);
    }
    assertThat(stop(again, secondLog))
        .as("exit status after SIGTERM\n" + Tails.of(secondLog, 30))
        .isEqualTo(RelayMain.OK);
    assertIdenticalToPrimary(primary, dataDir);
    LOG.info("second run: store identical to the primary, {} files", storedFiles(dataDir).size());
  }

  @Test
  void removesTheOldestFilesBeyondMaxBinlogTotalSize(ServerFarm farm, @TempDir Path dir)
      throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MARIADB_10_11)
                .named("primary")
                .withMaxBinlogSize(64 * 1024));
    primary.execute(
        "CREATE DATABASE p",
        "CREATE TABLE p.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(200))");
    for (int i = 0; i < 6; i++) {
      write(primary, 100);
      primary.execute("FLUSH BINARY LOGS");
    }
    Path dataDir = dir.resolve("relay-data");
    Path passwordFile =
        Files.writeString(
            dir.resolve("primary-password"), primary.replicationCredentials().password() + "\n");
    Path accounts = Files.writeString(dir.resolve("accounts"), "");
    List<String> command =
        new ArrayList<>(command(primary, dataDir, passwordFile, accounts, freePort()));
    command.addAll(List.of("--max-binlog-total-size", "40K"));
    Path logFile = dir.resolve("relay.log");
    Process relay = ChildProcesses.start(command, dir, logFile, null);
    try {
      Map<String, Long> primaryFiles = fileSizes(primary.binlogDir());
      String last = new ArrayList<>(primaryFiles.keySet()).get(primaryFiles.size() - 1);
      try {
        eventually(
            CATCH_UP,
            "retention bringing the store to 2 files, the last "
                + last
                + " whole"
                + " [relay, primary]",
            () -> {
              List<Map<String, Long>> both =
                  List.of(fileSizes(dataDir), fileSizes(primary.binlogDir()));
              if (!relay.isAlive()) {
                throw new AssertionError("the relay exited; [relay, primary] " + both);
              }
              return both;
            },
            both ->
                both.get(0).containsKey(last)
                    && both.get(0).size() <= 2
                    && both.get(0).get(last).equals(both.get(1).get(last)));
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "\n" + Tails.of(logFile, 40), e);
      }
      long total = fileSizes(dataDir).values().stream().mapToLong(Long::longValue).sum();
      LOG.info(
          "with --max-binlog-total-size 40K the relay keeps {} ({} bytes) of the primary's {}",
          fileSizes(dataDir).keySet(),
          total,
          primaryFiles.keySet());
      assertThat(total).isLessThanOrEqualTo(40 * 1024 + primaryFiles.get(last));
      assertThat(Files.readString(logFile)).contains("Retention removed");
      assertPrefixOfPrimary(primary, dataDir);
    } finally {
      assertThat(stop(relay, logFile)).isEqualTo(RelayMain.OK);
    }
  }

  @Test
  void badOptionsExitWithTwoAndOneLine(@TempDir Path dir) throws Exception {
    List<String> command = new ArrayList<>(javaCommand());
    command.addAll(
        List.of("--primary", "127.0.0.1:1", "--sync-binlog", "sometimes", "--server-id", "5"));
    Path out = dir.resolve("out.log");
    CommandResult result = ChildProcesses.run(command, dir, out, null, Duration.ofSeconds(60));
    assertThat(result.exitCode()).isEqualTo(RelayMain.USAGE);
    assertThat(result.output())
        .contains("binlog-relay: Invalid value for option '--sync-binlog'")
        .doesNotContain("\tat ")
        .doesNotContain("Exception");
  }

  private static List<String> javaCommand() {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return List.of(
        java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", classpath, RelayMain.class.getName());
  }

  private static List<String> command(
      DatabaseServer primary, Path dataDir, Path passwordFile, Path accounts, int port) {
    List<String> command = new ArrayList<>(javaCommand());
    command.addAll(
        List.of(
            "--primary", primary.address().host() + ":" + primary.address().port(),
            "--primary-user", primary.replicationCredentials().user(),
            "--primary-password-file", passwordFile.toString(),
            "--server-id", Long.toString(RELAY_SERVER_ID),
            "--data-dir", dataDir.toString(),
            "--port", Integer.toString(port),
            "--accounts-file", accounts.toString(),
            "--heartbeat-period", "500ms",
            "--admin-port", "0"));
    return command;
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

  /** SIGTERM, then the exit status (bounded). */
  private static int stop(Process relay, Path logFile) throws InterruptedException {
    relay.destroy();
    if (!relay.waitFor(60, TimeUnit.SECONDS)) {
      ChildProcesses.kill(relay);
      throw new AssertionError(
          "the relay did not stop within 60 s of SIGTERM:\n" + Tails.of(logFile, 40));
    }
    return relay.exitValue();
  }

  /**
   * Runs a query on the relay with the mariadb client as repl; its rows, tab-separated, without
   * headers.
   */
  private static String relayQuery(int port, String sql, Path dir) {
    Path out;
    try {
      out = Files.createTempFile(dir, "mariadb-client-", ".out");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    CommandResult result =
        ChildProcesses.run(
            List.of(
                "mariadb",
                "--no-defaults",
                "-h127.0.0.1",
                "-P" + port,
                "-urepl",
                "-p" + RELAY_PASSWORD,
                "-N",
                "-B",
                "-e",
                sql),
            dir,
            out,
            null,
            Duration.ofSeconds(30));
    result.requireSuccess("mariadb client against the relay");
    return result.output().strip();
  }

  /**
   * {@code mariadb-binlog --read-from-remote-server --raw} against the relay writes the primary's
   * first (closed) file byte for byte.
   */
  private static void assertServesFirstFile(DatabaseServer primary, int port, Path dir)
      throws IOException {
    Path raw = Files.createDirectories(dir.resolve("raw"));
    Path out = dir.resolve("mariadb-binlog.out");
    ChildProcesses.run(
            List.of(
                "mariadb-binlog",
                "--no-defaults",
                "--read-from-remote-server",
                "--raw",
                "--host=127.0.0.1",
                "--port=" + port,
                "--user=repl",
                "--password=" + RELAY_PASSWORD,
                "--result-file=" + raw + "/",
                "binlog.000001"),
            dir,
            out,
            null,
            Duration.ofSeconds(60))
        .requireSuccess("mariadb-binlog --read-from-remote-server against the relay");
    assertThat(Files.readAllBytes(raw.resolve("binlog.000001")))
        .as("binlog.000001 read through the relay")
        .isEqualTo(Files.readAllBytes(primary.binlogDir().resolve("binlog.000001")));
  }

  /**
   * Waits until the relay stores every file the primary has, each as long as the primary's (the
   * test does not write meanwhile; the primary's own late events, such as BINLOG_CHECKPOINT, are
   * waited for too), then checks the bytes.
   */
  private static void awaitCaughtUp(
      DatabaseServer primary, Path dataDir, Process relay, Path logFile) throws Exception {
    try {
      eventually(
          CATCH_UP,
          "the relay's files as the primary's [primary, relay]",
          () -> {
            List<Map<String, Long>> both =
                List.of(fileSizes(primary.binlogDir()), fileSizes(dataDir));
            if (!both.get(0).equals(both.get(1)) && !relay.isAlive()) {
              throw new AssertionError("the relay exited with " + relay.exitValue());
            }
            return both;
          },
          both -> both.get(0).equals(both.get(1)));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + Tails.of(logFile, 40), e);
    }
    assertPrefixOfPrimary(primary, dataDir);
  }

  /** Binlog file name to size, in index order; empty before the directory exists. */
  private static Map<String, Long> fileSizes(Path binlogDir) throws IOException {
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

  private static Map<String, byte[]> storedFiles(Path dataDir) throws IOException {
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (String name : fileSizes(dataDir).keySet()) {
      files.put(name, Files.readAllBytes(dataDir.resolve(name)));
    }
    return files;
  }

  /**
   * Every stored file is a prefix of the primary's file of that name (the in-use flag byte aside).
   */
  private static void assertPrefixOfPrimary(DatabaseServer primary, Path dataDir)
      throws IOException {
    Map<String, Long> primaryFiles = fileSizes(primary.binlogDir());
    for (String name : fileSizes(dataDir).keySet()) {
      assertThat(primaryFiles).as("the primary has %s", name).containsKey(name);
      byte[] stored = Files.readAllBytes(dataDir.resolve(name));
      byte[] original = Files.readAllBytes(primary.binlogDir().resolve(name));
      assertThat(prefixMismatch(masked(stored), masked(original)))
          .as("%s is a prefix of the primary's", name)
          .isEqualTo(-1);
    }
  }

  /**
   * After a clean stop: the same files; closed files byte for byte, the open one up to its in-use
   * flag.
   */
  private static void assertIdenticalToPrimary(DatabaseServer primary, Path dataDir)
      throws IOException {
    Map<String, Long> primaryFiles = fileSizes(primary.binlogDir());
    assertThat(fileSizes(dataDir)).isEqualTo(primaryFiles);
    List<String> names = new ArrayList<>(primaryFiles.keySet());
    for (int i = 0; i < names.size(); i++) {
      byte[] stored = Files.readAllBytes(dataDir.resolve(names.get(i)));
      byte[] original = Files.readAllBytes(primary.binlogDir().resolve(names.get(i)));
      boolean open = i == names.size() - 1;
      assertThat(open ? masked(stored) : stored)
          .as(names.get(i))
          .isEqualTo(open ? masked(original) : original);
    }
  }

  private static byte[] masked(byte[] file) {
    byte[] copy = file.clone();
    if (copy.length > IN_USE_FLAG_OFFSET) {
      copy[IN_USE_FLAG_OFFSET] &= (byte) ~0x01;
    }
    return copy;
  }

  /** -1 if {@code prefix} is a prefix of {@code whole}, else the first offset where they differ. */
  private static int prefixMismatch(byte[] prefix, byte[] whole) {
    if (prefix.length > whole.length) {
      return whole.length;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (prefix[i] != whole[i]) {
        return i;
      }
    }
    return -1;
  }
}
