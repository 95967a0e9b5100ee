package org.binlogrelay.e2e.servers.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerFlavor;

/**
 * A MariaDB installation ({@code mariadbd}, {@code mariadb-install-db}) in a {@link ProgramRoot}:
 * Debian 12's MariaDB 10.11 run directly on the host (run directories in {@code
 * ${java.io.tmpdir}/binlog-relay-e2e}), or MariaDB 11.8 from Debian sid in {@code
 * $BINLOG_RELAY_CACHE/mariadb-sid-root}, run as {@code chroot ROOT mariadbd ...} (run directories
 * in {@code ROOT/data/binlog-relay-e2e}). Both are set up and started the same way.
 */
final class LocalMariadbInstallation implements LocalInstallation {

  private static final String REDO_LOG_SIZE = "--innodb-log-file-size=48M";

  private final ProgramRoot root;
  private final String version;

  private LocalMariadbInstallation(ProgramRoot root, String version) {
    this.root = root;
    this.version = version;
  }

  static LocalMariadbInstallation discover(ProgramRoot root) {
    return new LocalMariadbInstallation(root, LocalInstallation.probeVersion(root, "mariadbd"));
  }

  @Override
  public ServerFlavor flavor() {
    return ServerFlavor.MARIADB;
  }

  @Override
  public String reportedVersion() {
    return version;
  }

  @Override
  public Path runBase() {
    return root.runBase();
  }

  @Override
  public String serverPath(Path hostPath) {
    return root.serverPath(hostPath);
  }

  @Override
  public void initializeTemplate(Path templateDataDir, Path workDir) {
    Path output = workDir.resolve("mariadb-install-db.out");
    String tmpdir = "--tmpdir=" + serverPath(LocalInstallation.createTmpdir(workDir));
    // --skip-name-resolve and --force: the machine's host name need not resolve (in a chroot it
    // does not), and
    // without them mariadb-install-db stops to say so; the harness's users are '%' anyway.
    List<String> install =
        root.command(
            "mariadb-install-db",
            List.of(
                "--no-defaults",
                "--user=root",
                "--datadir=" + serverPath(templateDataDir),
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve",
                "--force",
                tmpdir,
                "--innodb-buffer-pool-size=64M",
                REDO_LOG_SIZE));
    ChildProcesses.run(install, workDir, output, null, Duration.ofMinutes(3))
        .requireSuccess("mariadb-install-db");

    // The users go in with the server in bootstrap mode, which reads SQL from stdin with the grant
    // tables
    // not loaded: FLUSH PRIVILEGES loads them so that CREATE USER works.
    Path usersSql = workDir.resolve("mariadb-users.sql");
    Path errorLog = workDir.resolve("mariadb-bootstrap.err");
    try {
      Files.writeString(
          usersSql,
          "FLUSH PRIVILEGES;\n"
              + String.join(";\n", ServerFlavor.MARIADB.dialect().createUserStatements())
              + ";\n");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + usersSql, e);
    }
    List<String> bootstrap =
        root.command(
            "mariadbd",
            List.of(
                "--no-defaults",
                "--bootstrap",
                "--user=root",
                "--datadir=" + serverPath(templateDataDir),
                "--log-error=" + serverPath(errorLog),
                tmpdir,
                "--innodb-buffer-pool-size=64M",
                REDO_LOG_SIZE));
    CommandResult result =
        ChildProcesses.run(
            bootstrap,
            workDir,
            workDir.resolve("mariadb-bootstrap.out"),
            usersSql,
            Duration.ofMinutes(3));
    if (result.exitCode() != 0) {
      throw new ServerException(
          "Creating the users in the MariaDB template failed with exit code "
              + result.exitCode()
              + ": "
              + String.join(" ", bootstrap)
              + "\n"
              + Tails.of(result.outputFile(), 20)
              + Tails.of(errorLog, 40));
    }
  }

  @Override
  public List<String> filesUniqueToEachCopy() {
    return List.of();
  }

  @Override
  public List<String> serverCommand(List<String> options) {
    List<String> arguments = new ArrayList<>(List.of("--no-defaults", "--user=root"));
    arguments.addAll(options);
    return root.command("mariadbd", arguments);
  }

  @Override
  public String toString() {
    return "MariaDB "
        + version
        + " ("
        + (root instanceof ChrootRoot ? "in " + root : "on " + root)
        + ")";
  }
}
