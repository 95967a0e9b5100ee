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
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerFlavor;

/**
 * MySQL from Debian sid, installed by the provisioning script in a debootstrap root at
 * {@code $BINLOG_RELAY_CACHE/mysql-sid-root} (default {@code ~/.cache/binlog-relay/mysql-sid-root}) and run as
 * {@code chroot ROOT mysqld ...}. {@code chroot} needs root. Everything the server touches (data, binlogs, logs,
 * socket) must live inside the root: run directories go to {@code ROOT/data/binlog-relay-e2e}. The loopback
 * interface is shared, so clients connect to 127.0.0.1 as usual.
 */
final class LocalMysqlInstallation implements LocalInstallation {

    private static final String MARKER = ".binlog-relay-provisioned";

    private final Path root;
    private final Path chroot;
    private final String version;

    private LocalMysqlInstallation(Path root, Path chroot, String version) {
        this.root = root;
        this.chroot = chroot;
        this.version = version;
    }

    static LocalMysqlInstallation discover() {
        String cacheVariable = System.getenv("BINLOG_RELAY_CACHE");
        Path cache = cacheVariable != null && !cacheVariable.isBlank() ? Path.of(cacheVariable)
                : Path.of(System.getProperty("user.home"), ".cache", "binlog-relay");
        Path root = cache.resolve("mysql-sid-root").toAbsolutePath().normalize();
        if (!Files.exists(root.resolve(MARKER)) || !Files.isExecutable(root.resolve("usr/sbin/mysqld"))) {
            throw new ServerException("MySQL is not installed: " + root.resolve(MARKER) + " or "
                    + root.resolve("usr/sbin/mysqld") + " is missing. " + Provisioning.hint());
        }
        Path chroot = Provisioning.executable("chroot", "chroot (coreutils)");
        List<String> command = List.of(chroot.toString(), root.toString(), "mysqld", "--version");
        Path output = temporaryFile();
        try {
            CommandResult result = ChildProcesses.run(command, root, output, null, Duration.ofSeconds(60));
            if (result.exitCode() != 0) {
                throw new ServerException("Cannot run MySQL in " + root + " (exit code " + result.exitCode()
                        + "): " + String.join(" ", command) + "\n" + Tails.of(output, 20)
                        + "chroot needs root: run the tests as root. If the root is damaged, delete it and "
                        + Provisioning.hint());
            }
            return new LocalMysqlInstallation(root, chroot,
                    LocalInstallation.parseVersion(result.output(), String.join(" ", command)));
        } finally {
            deleteQuietly(output);
        }
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
        return root.resolve("data").resolve("binlog-relay-e2e");
    }

    @Override
    public String serverPath(Path hostPath) {
        Path absolute = hostPath.toAbsolutePath().normalize();
        if (!absolute.startsWith(root)) {
            throw new IllegalArgumentException("Path " + hostPath + " is outside the MySQL root " + root
                    + " and invisible to the server");
        }
        return "/" + root.relativize(absolute);
    }

    @Override
    public void initializeTemplate(Path templateDataDir, Path workDir) {
        Path initFile = workDir.resolve("mysql-users.sql");
        Path errorLog = workDir.resolve("mysql-initialize.err");
        Path output = workDir.resolve("mysql-initialize.out");
        try {
            Files.writeString(initFile,
                    String.join(";\n", ServerFlavor.MYSQL.dialect().createUserStatements()) + ";\n");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + initFile, e);
        }
        List<String> command = List.of(chroot.toString(), root.toString(), "mysqld", "--no-defaults",
                "--initialize-insecure", "--user=root",
                "--datadir=" + serverPath(templateDataDir),
                "--init-file=" + serverPath(initFile),
                "--log-error=" + serverPath(errorLog),
                "--innodb-buffer-pool-size=64M",
                "--innodb-redo-log-capacity=64M");
        CommandResult result = ChildProcesses.run(command, workDir, output, null, Duration.ofMinutes(3));
        if (result.exitCode() != 0) {
            throw new ServerException("mysqld --initialize-insecure failed with exit code " + result.exitCode()
                    + ": " + String.join(" ", command) + "\n" + Tails.of(output, 20) + Tails.of(errorLog, 40));
        }
    }

    @Override
    public List<String> filesUniqueToEachCopy() {
        return List.of("auto.cnf");
    }

    @Override
    public List<String> serverCommand(List<String> options) {
        List<String> command = new ArrayList<>(List.of(chroot.toString(), root.toString(), "mysqld",
                "--no-defaults", "--user=root", "--secure-file-priv="));
        command.addAll(options);
        return command;
    }

    private static Path temporaryFile() {
        try {
            return Files.createTempFile("binlog-relay-e2e-", ".out");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a temporary file", e);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // A leftover temporary file is harmless; the version check's result is what matters.
        }
    }

    @Override
    public String toString() {
        return "MySQL " + version + " in " + root;
    }
}
