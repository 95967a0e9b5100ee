package org.binlogrelay.e2e.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerException;

/**
 * The servers' own binlog readers, run on a file with {@code --verify-binlog-checksum -vv}: MySQL 9.7's
 * {@code mysqlbinlog} inside the provisioned Debian sid root ({@code chroot ROOT mysqlbinlog}, so the file must lie
 * under ROOT) and the host's MariaDB {@code mariadb-binlog}. A missing tool is an error naming what to install, never
 * a skip. Every run is bounded in time; its output goes to a temporary file.
 */
enum BinlogTool {
    MYSQLBINLOG,
    MARIADB_BINLOG;

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** The MySQL root: {@code $BINLOG_RELAY_CACHE/mysql-sid-root} or {@code ~/.cache/binlog-relay/mysql-sid-root}. */
    static Path mysqlRoot() {
        String cache = System.getenv("BINLOG_RELAY_CACHE");
        Path base = cache != null && !cache.isBlank() ? Path.of(cache)
                : Path.of(System.getProperty("user.home"), ".cache", "binlog-relay");
        Path root = base.resolve("mysql-sid-root").toAbsolutePath().normalize();
        if (!Files.isExecutable(root.resolve("usr/bin/mysqlbinlog"))) {
            throw new ServerException("MySQL's mysqlbinlog is not installed: " + root.resolve("usr/bin/mysqlbinlog")
                    + " is missing. " + Provisioning.hint());
        }
        return root;
    }

    /** Runs the tool on {@code file} (for {@link #MYSQLBINLOG} a file under {@link #mysqlRoot()}). */
    Dump read(Path file) {
        List<String> command = new ArrayList<>();
        String seen;
        if (this == MYSQLBINLOG) {
            Path root = mysqlRoot();
            Path absolute = file.toAbsolutePath().normalize();
            if (!absolute.startsWith(root)) {
                throw new IllegalArgumentException(file + " is outside " + root + ", where mysqlbinlog cannot see it");
            }
            seen = "/" + root.relativize(absolute);
            command.addAll(List.of(Provisioning.executable("chroot", "chroot (coreutils)").toString(), root.toString(),
                    "mysqlbinlog", "--no-defaults", "--verify-binlog-checksum", "-vv", seen));
        } else {
            seen = file.toAbsolutePath().toString();
            command.addAll(List.of(Provisioning.executable("mariadb-binlog", "MariaDB's mariadb-binlog").toString(),
                    "--no-defaults", "--verify-binlog-checksum", "-vv", seen));
        }
        try {
            Path output = Files.createTempFile("binlog-relay-binlog-tool-", ".out");
            try {
                CommandResult result = ChildProcesses.run(command, output.getParent(), output, null, TIMEOUT);
                return new Dump(this, seen, String.join(" ", command), result.exitCode(), result.output());
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
        }
    }

    /**
     * What a tool printed for one file.
     *
     * @param file the file's path as the tool saw it
     * @param command the command line, for messages
     * @param exitCode its exit code
     * @param output stdout and stderr
     */
    record Dump(BinlogTool tool, String file, String command, int exitCode, String output) {
        private static final Pattern MYSQL_GTID = Pattern.compile("SET @@SESSION\\.GTID_NEXT= '([^']+)'");
        private static final Pattern MARIADB_GTID = Pattern.compile("\tGTID (\\d+-\\d+-\\d+)");
        private static final Pattern COMMENT_LINE = Pattern.compile("^# (?!at )(.*)$");

        /** The GTIDs of the file's transactions, in order, as the tool prints them (no AUTOMATIC or ANONYMOUS). */
        List<String> gtids() {
            List<String> out = new ArrayList<>();
            Matcher m = (tool == MYSQLBINLOG ? MYSQL_GTID : MARIADB_GTID).matcher(output);
            while (m.find()) {
                String g = m.group(1);
                if (!g.equals("AUTOMATIC") && !g.equals("ANONYMOUS")) {
                    out.add(g);
                }
            }
            return out;
        }

        /**
         * The file's header set as the tool prints it: MySQL's Previous-GTIDs (on the "# " lines after the event's
         * line) or MariaDB's "Gtid list [...]" (which may continue on "# " lines); {@code null} if there is none.
         */
        String headerSet() {
            String[] lines = output.split("\n");
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                if (tool == MYSQLBINLOG && line.endsWith("\tPrevious-GTIDs")) {
                    StringBuilder sb = new StringBuilder();
                    for (int j = i + 1; j < lines.length; j++) {
                        Matcher m = COMMENT_LINE.matcher(lines[j]);
                        if (!m.matches()) {
                            break;
                        }
                        sb.append(m.group(1).strip());
                    }
                    return sb.toString().equals("[empty]") ? "" : sb.toString(); // "# [empty]" for no GTIDs
                }
                int at = line.indexOf("\tGtid list [");
                if (tool == MARIADB_BINLOG && at >= 0) {
                    StringBuilder sb = new StringBuilder(line.substring(at + "\tGtid list [".length()));
                    for (int j = i + 1; sb.indexOf("]") < 0 && j < lines.length; j++) {
                        Matcher m = COMMENT_LINE.matcher(lines[j]);
                        if (!m.matches()) {
                            break;
                        }
                        sb.append(m.group(1).strip());
                    }
                    int end = sb.indexOf("]");
                    return end < 0 ? sb.toString() : sb.substring(0, end);
                }
            }
            return null;
        }

        /** Both tools print this for a file whose FORMAT_DESCRIPTION has the in-use flag set. */
        boolean warnsInUse() {
            return output.contains("# Warning: this binlog is either in use or was not closed properly.");
        }

        /** The output with the file's path replaced, to compare runs on two copies of a file. */
        String outputWithoutPath() {
            return output.replace(file, "FILE");
        }

        @Override
        public String toString() {
            String[] lines = output.split("\n");
            int from = Math.max(0, lines.length - 30);
            return command + " exited with " + exitCode + "; last lines:\n"
                    + String.join("\n", List.of(lines).subList(from, lines.length));
        }
    }
}
