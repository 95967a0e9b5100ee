package org.binlogrelay.e2e.servers.local;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerFlavor;

/**
 * Server binaries installed on this machine by {@code scripts/provision-test-servers.sh}, one implementation per
 * flavour: {@link LocalMysqlInstallation} (MySQL in a Debian sid root, run through {@code chroot}) and
 * {@link LocalMariadbInstallation} (Debian's MariaDB). Found once per JVM; a missing installation is an error whose
 * message says how to provision it, never a reason to skip a test.
 */
interface LocalInstallation {

    ServerFlavor flavor();

    /** What the server reports, e.g. {@code 9.7.4-2}. */
    String reportedVersion();

    /** The host directory under which this JVM's run directory for this installation lives. */
    Path runBase();

    /** How the server process sees a host path (inside the chroot for MySQL). */
    String serverPath(Path hostPath);

    /**
     * Creates a fresh data directory with the system tables and the harness users, without any binlog or GTID;
     * it is copied for every server.
     */
    void initializeTemplate(Path templateDataDir, Path workDir);

    /** Names of files in the template that every copy must not share (MySQL's {@code auto.cnf}, its server_uuid). */
    List<String> filesUniqueToEachCopy();

    /** The full command that runs a server with these options. */
    List<String> serverCommand(List<String> options);

    /** The version from {@code mysqld --version} output such as {@code /usr/sbin/mysqld  Ver 9.7.4-2 for Linux}. */
    static String parseVersion(String versionOutput, String command) {
        Matcher matcher = Pattern.compile("Ver\\s+(\\d+\\.\\d+\\.\\d+\\S*)").matcher(versionOutput);
        if (!matcher.find()) {
            throw new ServerException("Cannot find a version in the output of '" + command + "': " + versionOutput);
        }
        return matcher.group(1);
    }
}
