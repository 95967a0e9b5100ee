package org.binlogrelay.e2e.downstream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerException;

/**
 * The real command-line clients on this machine, run against a port on 127.0.0.1: MySQL 9.7's
 * {@code mysql} and {@code mysqlbinlog} inside the provisioned chroot (loopback is shared), the
 * host's MariaDB {@code mariadb} and {@code mariadb-binlog} (MariaDB 10.11, Connector/C 3.3), and
 * MariaDB 11.8's {@code mariadb} in its chroot (Connector/C 3.4: TLS and server verification by
 * default). Every run is bounded in time; output goes to a temporary file. Thread-safe (stateless).
 */
public final class RealClients {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private RealClients() {}

  /**
   * The MySQL chroot: {@code $BINLOG_RELAY_CACHE/mysql-sid-root} or {@code
   * ~/.cache/binlog-relay/mysql-sid-root}.
   */
  static Path mysqlRoot() {
    String cache = System.getenv("BINLOG_RELAY_CACHE");
    Path base =
        cache != null && !cache.isBlank()
            ? Path.of(cache)
            : Path.of(System.getProperty("user.home"), ".cache", "binlog-relay");
    Path root = base.resolve("mysql-sid-root");
    if (!Files.isExecutable(root.resolve("usr/bin/mysql"))) {
      throw new ServerException(
          "MySQL client tools are not installed in " + root + ". " + Provisioning.hint());
    }
    return root;
  }

  /** The MariaDB 11.8 chroot: {@code mariadb-sid-root} beside {@link #mysqlRoot()}. */
  static Path mariadb118Root() {
    Path root = Provisioning.cacheDir().resolve("mariadb-sid-root");
    if (!Files.isExecutable(root.resolve("usr/bin/mariadb"))) {
      throw new ServerException(
          "The MariaDB 11.8 client is not installed in " + root + ". " + Provisioning.hint());
    }
    return root;
  }

  /**
   * MariaDB 11.8's {@code mariadb} at its defaults (TLS, {@code --ssl-verify-server-cert})
   * connecting over TCP to {@code host}, an address of this machine: {@code 127.0.0.1} or another
   * spelling of it such as {@code 127.1} (Connector/C 3.4 lets a self-signed certificate pass
   * unchecked for the literal {@code 127.0.0.1} and {@code ::1} only).
   */
  public static CommandResult mariadb118(
      String host, int port, String user, String password, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Provisioning.executable("chroot", "chroot (coreutils)").toString(),
                mariadb118Root().toString(),
                "mariadb",
                "--no-defaults",
                "--protocol=TCP",
                "-h" + host,
                "-P" + port,
                "-u" + user,
                "-p" + password,
                "--connect-timeout=10"));
    command.addAll(List.of(args));
    return run(command);
  }

  /**
   * {@code mysql} (MySQL 9.7) reading {@code script} from standard input with {@code --force}, so
   * every statement runs and every error is printed with its line (with {@code -e} the client stops
   * at the first error).
   */
  static CommandResult mysqlScript(
      int port, String user, String password, String script, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--force");
    return withStdin(
        script, stdin -> mysql(port, user, password, stdin, all.toArray(String[]::new)));
  }

  /**
   * The host's {@code mariadb} client reading {@code script} from standard input with {@code
   * --force}.
   */
  static CommandResult mariadbScript(
      int port, String user, String password, String script, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--force");
    return withStdin(
        script, stdin -> mariadb(port, user, password, stdin, all.toArray(String[]::new)));
  }

  private static CommandResult withStdin(String script, Function<Path, CommandResult> run) {
    try {
      Path stdin = Files.createTempFile("binlog-relay-client-", ".sql");
      try {
        Files.writeString(stdin, script);
        return run.apply(stdin);
      } finally {
        Files.deleteIfExists(stdin);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write a client script", e);
    }
  }

  /** {@code mysql} (MySQL 9.7) with {@code args} after the connection options. */
  public static CommandResult mysql(int port, String user, String password, String... args) {
    return mysql(port, user, password, null, args);
  }

  private static CommandResult mysql(
      int port, String user, String password, Path stdin, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Provisioning.executable("chroot", "chroot (coreutils)").toString(),
                mysqlRoot().toString(),
                "mysql",
                "--no-defaults",
                "--protocol=TCP",
                "-h127.0.0.1",
                "-P" + port,
                "-u" + user,
                "--connect-timeout=10"));
    if (password != null) {
      command.add("-p" + password);
    }
    command.addAll(List.of(args));
    return run(command, stdin);
  }

  /**
   * {@code mysqlbinlog} (MySQL 9.7) with {@code args} after the connection options; {@code args}
   * say how to read from the server ({@code --read-from-remote-server} or {@code
   * --read-from-remote-source=...}).
   */
  public static CommandResult mysqlbinlog(int port, String user, String password, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Provisioning.executable("chroot", "chroot (coreutils)").toString(),
                mysqlRoot().toString(),
                "mysqlbinlog",
                "--no-defaults",
                "--protocol=TCP",
                "--host=127.0.0.1",
                "--port=" + port,
                "--user=" + user,
                "--password=" + password));
    command.addAll(List.of(args));
    return run(command);
  }

  /** The host's {@code mariadb} client (MariaDB Connector/C). */
  static CommandResult mariadb(int port, String user, String password, String... args) {
    return mariadb(port, user, password, null, args);
  }

  private static CommandResult mariadb(
      int port, String user, String password, Path stdin, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Provisioning.executable("mariadb", "The MariaDB client").toString(),
                "--no-defaults",
                "--protocol=TCP",
                "-h127.0.0.1",
                "-P" + port,
                "-u" + user,
                "--connect-timeout=10"));
    if (password != null) {
      command.add("-p" + password);
    }
    command.addAll(List.of(args));
    return run(command, stdin);
  }

  /** The host's {@code mariadb-binlog} reading from a server. */
  public static CommandResult mariadbBinlog(
      int port, String user, String password, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Provisioning.executable("mariadb-binlog", "mariadb-binlog").toString(),
                "--no-defaults",
                "--read-from-remote-server",
                "--protocol=TCP",
                "--host=127.0.0.1",
                "--port=" + port,
                "--user=" + user,
                "--password=" + password));
    command.addAll(List.of(args));
    return run(command);
  }

  private static CommandResult run(List<String> command) {
    return run(command, null);
  }

  private static CommandResult run(List<String> command, Path stdin) {
    try {
      Path output = Files.createTempFile("binlog-relay-client-", ".out");
      output.toFile().deleteOnExit();
      return ChildProcesses.run(command, output.getParent(), output, stdin, TIMEOUT);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create an output file for " + command.get(0), e);
    }
  }
}
