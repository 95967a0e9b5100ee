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
 * MySQL from Debian sid, installed by the provisioning script in a debootstrap root at {@code
 * $BINLOG_RELAY_CACHE/mysql-sid-root} (default {@code ~/.cache/binlog-relay/mysql-sid-root}) and
 * run as {@code chroot ROOT mysqld ...} ({@link ChrootRoot}: root needed, every file the server
 * touches inside the root).
 */
final class LocalMysqlInstallation implements LocalInstallation {

  private final ChrootRoot root;
  private final String version;

  private LocalMysqlInstallation(ChrootRoot root, String version) {
    this.root = root;
    this.version = version;
  }

  static LocalMysqlInstallation discover() {
    ChrootRoot root = ChrootRoot.find("mysql-sid-root", "usr/sbin/mysqld", "MySQL");
    return new LocalMysqlInstallation(root, LocalInstallation.probeVersion(root, "mysqld"));
  }

  @Override
  public ServerFlavor flavor() {
    return ServerFlavor.MYSQL;
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
    Path initFile = workDir.resolve("mysql-users.sql");
    Path errorLog = workDir.resolve("mysql-initialize.err");
    Path output = workDir.resolve("mysql-initialize.out");
    try {
      Files.writeString(
          initFile,
          String.join(";\n", ServerFlavor.MYSQL.dialect().createUserStatements()) + ";\n");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + initFile, e);
    }
    List<String> command =
        root.command(
            "mysqld",
            List.of(
                "--no-defaults",
                "--initialize-insecure",
                "--user=root",
                "--datadir=" + serverPath(templateDataDir),
                "--init-file=" + serverPath(initFile),
                "--log-error=" + serverPath(errorLog),
                "--tmpdir=" + serverPath(LocalInstallation.createTmpdir(workDir)),
                "--innodb-buffer-pool-size=64M",
                "--innodb-redo-log-capacity=64M"));
    CommandResult result =
        ChildProcesses.run(command, workDir, output, null, Duration.ofMinutes(3));
    if (result.exitCode() != 0) {
      throw new ServerException(
          "mysqld --initialize-insecure failed with exit code "
              + result.exitCode()
              + ": "
              + String.join(" ", command)
              + "\n"
              + Tails.of(output, 20)
              + Tails.of(errorLog, 40));
    }
  }

  @Override
  public List<String> filesUniqueToEachCopy() {
    return List.of("auto.cnf");
  }

  @Override
  public List<String> serverCommand(List<String> options) {
    List<String> arguments =
        new ArrayList<>(List.of("--no-defaults", "--user=root", "--secure-file-priv="));
    arguments.addAll(options);
    return root.command("mysqld", arguments);
  }

  @Override
  public String toString() {
    return "MySQL " + version + " in " + root;
  }
}
