package org.binlogrelay.e2e.servers.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerVersion;

/**
 * Server binaries installed on this machine by {@code scripts/provision-test-servers.sh}, one per
 * series of {@link ServerVersion#local()}: {@link LocalMysqlInstallation} (MySQL 9.7 in a Debian
 * sid root) and {@link LocalMariadbInstallation} (Debian's MariaDB 10.11 on the host; MariaDB 11.8
 * in its own sid root), found with {@link #of(ServerVersion)}. Found once per JVM and series; a
 * missing installation is an error whose message says how to provision it, never a reason to skip a
 * test. Implementations are immutable.
 */
interface LocalInstallation {

  ServerFlavor flavor();

  /** What the server reports, e.g. {@code 9.7.4-2}. */
  String reportedVersion();

  /** The host directory under which this JVM's run directory for this installation lives. */
  Path runBase();

  /** How the server process sees a host path (inside the chroot for MySQL and MariaDB 11.8). */
  String serverPath(Path hostPath);

  /**
   * Creates a fresh data directory with the system tables and the harness users, without any binlog
   * or GTID; it is copied for every server.
   */
  void initializeTemplate(Path templateDataDir, Path workDir);

  /**
   * Names of files in the template that every copy must not share (MySQL's {@code auto.cnf}, its
   * server_uuid).
   */
  List<String> filesUniqueToEachCopy();

  /** The full command that runs a server with these options. */
  List<String> serverCommand(List<String> options);

  /**
   * The installation of {@code version}: MySQL 9.7 in {@code mysql-sid-root}, MariaDB 10.11 on the
   * host, MariaDB 11.8 in {@code mariadb-sid-root}. Any other series is refused with a message
   * suggesting the Docker backend.
   */
  static LocalInstallation of(ServerVersion version) {
    if (version.equals(ServerVersion.MYSQL_9_7)) {
      return LocalMysqlInstallation.discover();
    }
    if (version.equals(ServerVersion.MARIADB_10_11)) {
      return LocalMariadbInstallation.discover(ProgramRoot.host("MariaDB 10.11"));
    }
    if (version.equals(ServerVersion.MARIADB_11_8)) {
      return LocalMariadbInstallation.discover(
          ChrootRoot.find("mariadb-sid-root", "usr/sbin/mariadbd", "MariaDB 11.8"));
    }
    throw new ServerException(
        "The local backend has no "
            + version
            + ": it has "
            + ServerVersion.local().stream()
                .map(ServerVersion::toString)
                .collect(Collectors.joining(", "))
            + ". Ask for one of those or run with -Dservers=docker.");
  }

  /**
   * Creates {@code workDir/tmp}, the tmpdir of the servers that make a template: a server deletes
   * every {@code #sql} file in its tmpdir when it starts, so no two may share one.
   */
  static Path createTmpdir(Path workDir) {
    Path tmpdir = workDir.resolve("tmp");
    try {
      return Files.createDirectories(tmpdir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create " + tmpdir, e);
    }
  }

  /** Runs {@code program --version} in {@code root} and returns the version it prints. */
  static String probeVersion(ProgramRoot root, String program) {
    List<String> command = root.command(program, List.of("--version"));
    Path output;
    try {
      output = Files.createTempFile("binlog-relay-e2e-", ".out");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create a temporary file", e);
    }
    try {
      CommandResult result =
          ChildProcesses.run(command, output.getParent(), output, null, Duration.ofSeconds(60));
      if (result.exitCode() != 0) {
        throw new ServerException(
            "Cannot run "
                + program
                + " in "
                + root
                + " (exit code "
                + result.exitCode()
                + "): "
                + String.join(" ", command)
                + "\n"
                + Tails.of(output, 20)
                + root.repairHint());
      }
      return parseVersion(result.output(), String.join(" ", command));
    } finally {
      try {
        Files.deleteIfExists(output);
      } catch (IOException e) {
        // A leftover temporary file is harmless; the version check's result is what matters.
      }
    }
  }

  /**
   * The version from {@code mysqld --version} output such as {@code /usr/sbin/mysqld Ver 9.7.4-2
   * for Linux}.
   */
  static String parseVersion(String versionOutput, String command) {
    Matcher matcher = Pattern.compile("Ver\\s+(\\d+\\.\\d+\\.\\d+\\S*)").matcher(versionOutput);
    if (!matcher.find()) {
      throw new ServerException(
          "Cannot find a version in the output of '" + command + "': " + versionOutput);
    }
    return matcher.group(1);
  }
}
