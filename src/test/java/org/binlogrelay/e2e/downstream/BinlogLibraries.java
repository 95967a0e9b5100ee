package org.binlogrelay.e2e.downstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerFlavor;

/**
 * The third-party binlog libraries that {@code scripts/provision-binlog-clients.sh} installs, each
 * driven by a small program of {@code src/test/resources/binlog-clients} that prints what the
 * library decodes as JSON lines ({@link DecodedStream}): python-mysql-replication ({@code
 * pymysqlrepl_events.py} in the provisioned venv), zongji ({@code zongji_events.mjs} with the
 * provisioned {@code node_modules}) and go-mysql's BinlogSyncer (the provisioned build of {@code
 * go/main.go}). An installation whose pinned inputs changed since it was made, or that is missing,
 * fails with a message naming the provisioning script. Thread-safe (stateless).
 */
enum BinlogLibraries {
  PYTHON_MYSQL_REPLICATION("python-mysql-replication", "python", "python/requirements.txt"),
  ZONGJI("zongji", "node", "node/package.json", "node/package-lock.json"),
  GO_MYSQL("go-mysql", "go", "go/go.mod", "go/go.sum", "go/main.go");

  /** How long a client waits for its marker row before it gives up (it exits 2 then). */
  static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(150);

  private final String displayName;
  private final String directory;
  private final List<String> inputs;

  BinlogLibraries(String displayName, String directory, String... inputs) {
    this.displayName = displayName;
    this.directory = directory;
    this.inputs = List.of(inputs);
  }

  /** Where a client connects: a primary or the relay. */
  record Target(
      String name,
      String host,
      int port,
      String user,
      String password,
      boolean tls,
      ServerFlavor flavor) {}

  /** Where a client's stream starts. */
  sealed interface Start {
    /** A file and position ({@code COM_BINLOG_DUMP}). */
    record Position(String file, long position) implements Start {}

    /** GTID auto-positioning from the transactions in {@code set} (MySQL set, MariaDB position). */
    record Gtids(String set) implements Start {}

    /** zongji's {@code startAtEnd}: the end of the newest file of {@code SHOW BINARY LOGS}. */
    record AtEnd() implements Start {}
  }

  @Override
  public String toString() {
    return displayName;
  }

  /**
   * Starts the client against {@code target} from {@code start}; it prints decoded events into
   * {@code output} and exits when it has seen the marker row {@code marker}.
   */
  Process start(Target target, Start start, long serverId, String marker, Path output) {
    Path installed = requireInstalled();
    Path sources = sources();
    List<String> command = new ArrayList<>();
    switch (this) {
      case PYTHON_MYSQL_REPLICATION -> {
        command.addAll(
            List.of(
                installed.resolve("venv/bin/python").toString(),
                "-u",
                sources.resolve("python/pymysqlrepl_events.py").toString(),
                "--flavor",
                target.flavor() == ServerFlavor.MYSQL ? "mysql" : "mariadb"));
        common(command, "--", target, serverId, marker);
        if (start instanceof Start.Position p) {
          command.addAll(List.of("--file", p.file(), "--pos", Long.toString(p.position())));
        } else if (start instanceof Start.Gtids g) {
          command.addAll(List.of("--gtid", g.set()));
        } else {
          throw new IllegalArgumentException(this + " has no start at the end");
        }
      }
      case ZONGJI -> {
        command.addAll(
            List.of(
                Provisioning.executable("node", "Node.js").toString(),
                sources.resolve("node/zongji_events.mjs").toString(),
                "--modules",
                installed.resolve("node_modules").toString()));
        common(command, "--", target, serverId, marker);
        if (start instanceof Start.Position p) {
          command.addAll(List.of("--file", p.file(), "--pos", Long.toString(p.position())));
        } else if (start instanceof Start.Gtids g) {
          command.addAll(List.of("--gtid", g.set()));
        } else {
          command.add("--start-at-end");
        }
      }
      case GO_MYSQL -> {
        command.addAll(
            List.of(
                installed.resolve("gomysql-events").toString(),
                "-flavor",
                target.flavor() == ServerFlavor.MYSQL ? "mysql" : "mariadb"));
        common(command, "-", target, serverId, marker);
        if (start instanceof Start.Position p) {
          command.addAll(List.of("-file", p.file(), "-pos", Long.toString(p.position())));
        } else if (start instanceof Start.Gtids g) {
          command.addAll(List.of("-by-gtid", "-gtid", g.set()));
        } else {
          throw new IllegalArgumentException(this + " has no start at the end");
        }
      }
      default -> throw new IllegalStateException();
    }
    return ChildProcesses.start(command, output.getParent(), output, null);
  }

  private static void common(
      List<String> command, String dash, Target target, long serverId, String marker) {
    command.addAll(
        List.of(
            dash + "host",
            target.host(),
            dash + "port",
            Integer.toString(target.port()),
            dash + "user",
            target.user(),
            dash + "password",
            target.password(),
            dash + "server-id",
            Long.toString(serverId),
            dash + "marker",
            marker,
            dash + "timeout",
            dash.equals("-")
                ? CLIENT_TIMEOUT.toSeconds() + "s"
                : Long.toString(CLIENT_TIMEOUT.toSeconds())));
    if (target.tls()) {
      command.add(dash + "tls");
    }
  }

  /** Waits (bounded) for a client started by {@link #start} to exit, and reads what it printed. */
  DecodedStream finish(Process process, Target target, Path output) throws InterruptedException {
    if (!process.waitFor(CLIENT_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS)) {
      ChildProcesses.kill(process);
      throw new AssertionError(
          this
              + " against "
              + target.name()
              + " did not exit; its output:\n"
              + Tails.of(output, 40));
    }
    return DecodedStream.read(this + " from " + target.name(), process.exitValue(), output);
  }

  /** The installation directory, after checking that it was made from the current pinned inputs. */
  Path requireInstalled() {
    Path dir = cacheDir().resolve(directory);
    Path stamp = dir.resolve(".binlog-relay-inputs");
    String expected = inputsHash();
    try {
      if (!Files.isRegularFile(stamp)) {
        throw new ServerException(
            displayName
                + " is not installed in "
                + dir
                + ". Run "
                + script()
                + " (scripts/provision-test-servers.sh runs it). "
                + Provisioning.hint());
      }
      String found = Files.readString(stamp).strip();
      if (!found.equals(expected)) {
        throw new ServerException(
            displayName
                + " in "
                + dir
                + " was installed from other pinned inputs ("
                + String.join(", ", inputs)
                + " changed since). Run "
                + script()
                + " again.");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }

  /** SHA-256 of the pinned input files concatenated, as the provisioning script computes it. */
  private String inputsHash() {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String input : inputs) {
        sha.update(Files.readAllBytes(sources().resolve(input)));
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String script() {
    return repo().resolve("scripts/provision-binlog-clients.sh").toString();
  }

  /** {@code $BINLOG_RELAY_CACHE/binlog-clients} or {@code ~/.cache/binlog-relay/binlog-clients}. */
  static Path cacheDir() {
    String cache = System.getenv("BINLOG_RELAY_CACHE");
    Path base =
        cache != null && !cache.isBlank()
            ? Path.of(cache)
            : Path.of(System.getProperty("user.home"), ".cache", "binlog-relay");
    return base.resolve("binlog-clients");
  }

  /** The client programs in the checkout, {@code src/test/resources/binlog-clients}. */
  static Path sources() {
    return repo().resolve("src/test/resources/binlog-clients");
  }

  private static Path repo() {
    String repo = System.getProperty("binlogrelay.repo");
    Path dir = repo != null ? Path.of(repo) : Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("src/test/resources/binlog-clients"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "no src/test/resources/binlog-clients above " + Path.of("").toAbsolutePath());
    }
    return dir.toAbsolutePath().normalize();
  }
}
