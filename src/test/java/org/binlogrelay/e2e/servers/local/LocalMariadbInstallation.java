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
 * Debian's MariaDB ({@code mariadbd}, {@code mariadb-install-db}), run directly. Run directories go to
 * {@code ${java.io.tmpdir}/binlog-relay-e2e}.
 */
final class LocalMariadbInstallation implements LocalInstallation {

    private static final String REDO_LOG_SIZE = "--innodb-log-file-size=48M";

    private final Path mariadbd;
    private final Path installDb;
    private final String version;

    private LocalMariadbInstallation(Path mariadbd, Path installDb, String version) {
        this.mariadbd = mariadbd;
        this.installDb = installDb;
        this.version = version;
    }

    static LocalMariadbInstallation discover() {
        Path mariadbd = Provisioning.executable("mariadbd", "MariaDB");
        Path installDb = Provisioning.executable("mariadb-install-db", "MariaDB");
        List<String> command = List.of(mariadbd.toString(), "--version");
        Path output;
        try {
            output = Files.createTempFile("binlog-relay-e2e-", ".out");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a temporary file", e);
        }
        try {
            CommandResult result = ChildProcesses.run(command, output.getParent(), output, null,
                    Duration.ofSeconds(60));
            result.requireSuccess("MariaDB version check");
            return new LocalMariadbInstallation(mariadbd, installDb,
                    LocalInstallation.parseVersion(result.output(), String.join(" ", command)));
        } finally {
            try {
                Files.deleteIfExists(output);
            } catch (IOException e) {
                // A leftover temporary file is harmless.
            }
        }
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
        return Path.of(System.getProperty("java.io.tmpdir"), "binlog-relay-e2e").toAbsolutePath();
    }

    @Override
    public String serverPath(Path hostPath) {
        return hostPath.toAbsolutePath().toString();
    }

    @Override
    public void initializeTemplate(Path templateDataDir, Path workDir) {
        Path output = workDir.resolve("mariadb-install-db.out");
        List<String> install = List.of(installDb.toString(), "--no-defaults", "--user=root",
                "--datadir=" + templateDataDir, "--auth-root-authentication-method=normal", "--skip-test-db",
                "--innodb-buffer-pool-size=64M", REDO_LOG_SIZE);
        ChildProcesses.run(install, workDir, output, null, Duration.ofMinutes(3)).requireSuccess("mariadb-install-db");

        // The users go in with the server in bootstrap mode, which reads SQL from stdin with the grant tables
        // not loaded: FLUSH PRIVILEGES loads them so that CREATE USER works.
        Path usersSql = workDir.resolve("mariadb-users.sql");
        Path errorLog = workDir.resolve("mariadb-bootstrap.err");
        try {
            Files.writeString(usersSql, "FLUSH PRIVILEGES;\n"
                    + String.join(";\n", ServerFlavor.MARIADB.dialect().createUserStatements()) + ";\n");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + usersSql, e);
        }
        List<String> bootstrap = List.of(mariadbd.toString(), "--no-defaults", "--bootstrap", "--user=root",
                "--datadir=" + templateDataDir, "--log-error=" + errorLog,
                "--innodb-buffer-pool-size=64M", REDO_LOG_SIZE);
        CommandResult result = ChildProcesses.run(bootstrap, workDir, workDir.resolve("mariadb-bootstrap.out"),
                usersSql, Duration.ofMinutes(3));
        if (result.exitCode() != 0) {
            throw new ServerException("Creating the users in the MariaDB template failed with exit code "
                    + result.exitCode() + ": " + String.join(" ", bootstrap) + "\n"
                    + Tails.of(result.outputFile(), 20) + Tails.of(errorLog, 40));
        }
    }

    @Override
    public List<String> filesUniqueToEachCopy() {
        return List.of();
    }

    @Override
    public List<String> serverCommand(List<String> options) {
        List<String> command = new ArrayList<>(List.of(mariadbd.toString(), "--no-defaults", "--user=root"));
        command.addAll(options);
        return command;
    }

    @Override
    public String toString() {
        return "MariaDB " + version + " (" + mariadbd + ")";
    }
}
