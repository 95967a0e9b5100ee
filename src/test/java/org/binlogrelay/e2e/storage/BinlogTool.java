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
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerVersion;

/**
 * The servers' own binlog readers, run with {@code --verify-binlog-checksum -vv} on a file or, with
 * {@code --read-from-remote-server}, on what a server (or the relay) sends: MySQL 9.7's {@code
 * mysqlbinlog} and MariaDB 11.8's {@code mariadb-binlog} inside their provisioned Debian sid roots
 * ({@code chroot ROOT ...}; a file outside the root is copied into the root's {@code /tmp} for the
 * run), and the host's MariaDB 10.11 {@code mariadb-binlog}. A missing tool is an error naming what
 * to install, never a skip. Every run is bounded in time; its output goes to a temporary file.
 */
public enum BinlogTool {
  MYSQLBINLOG("mysql-sid-root", "usr/bin/mysqlbinlog", "MySQL's mysqlbinlog"),
  MARIADB_BINLOG(null, "mariadb-binlog", "MariaDB 10.11's mariadb-binlog"),
  MARIADB_BINLOG_11_8(
      "mariadb-sid-root", "usr/bin/mariadb-binlog", "MariaDB 11.8's mariadb-binlog");

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final String rootName;
  private final String program;
  private final String what;

  BinlogTool(String rootName, String program, String what) {
    this.rootName = rootName;
    this.program = program;
    this.what = what;
  }

  /** The MariaDB tool of a series: the host's for 10.11, the sid root's for 11.8. */
  public static BinlogTool mariadbBinlog(ServerVersion version) {
    if (version.equals(ServerVersion.MARIADB_10_11)) {
      return MARIADB_BINLOG;
    }
    if (version.equals(ServerVersion.MARIADB_11_8)) {
      return MARIADB_BINLOG_11_8;
    }
    throw new IllegalArgumentException("No mariadb-binlog of " + version + " is provisioned");
  }

  /**
   * The MySQL root: {@code $BINLOG_RELAY_CACHE/mysql-sid-root} or {@code
   * ~/.cache/binlog-relay/mysql-sid-root}.
   */
  static Path mysqlRoot() {
    return MYSQLBINLOG.root();
  }

  /** Whether this is MySQL's tool (its output differs from MariaDB's). */
  boolean mysql() {
    return this == MYSQLBINLOG;
  }

  private Path root() {
    Path root = Provisioning.cacheDir().resolve(rootName);
    if (!Files.isExecutable(root.resolve(program))) {
      throw new ServerException(
          what
              + " is not installed: "
              + root.resolve(program)
              + " is missing. "
              + Provisioning.hint());
    }
    return root;
  }

  /** Runs the tool on {@code file}. */
  public Dump read(Path file) {
    Path absolute = file.toAbsolutePath().normalize();
    if (rootName == null) {
      return run(absolute.toString(), List.of(absolute.toString()));
    }
    Path root = root();
    if (absolute.startsWith(root)) {
      return run("/" + root.relativize(absolute), List.of("/" + root.relativize(absolute)));
    }
    try {
      Path copyDir =
          Files.createTempDirectory(Files.createDirectories(root.resolve("tmp")), "binlog-tool-");
      try {
        Path copy = Files.copy(absolute, copyDir.resolve(absolute.getFileName()));
        String seen = "/" + root.relativize(copy);
        return run(seen, List.of(seen));
      } finally {
        try (var files = Files.list(copyDir)) {
          for (Path f : files.toList()) {
            Files.delete(f);
          }
        }
        Files.delete(copyDir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy " + file + " into " + root + " for " + what, e);
    }
  }

  /**
   * Runs the tool as a client ({@code --read-from-remote-server --protocol=TCP}) of whatever
   * listens at {@code address} on this machine, from {@code firstFile} to the last file ({@code
   * --to-last-log}). {@code options} come before the file name, e.g. {@code --skip-ssl}.
   */
  public Dump readRemote(
      HostAndPort address, Credentials credentials, String firstFile, String... options) {
    List<String> arguments =
        new ArrayList<>(
            List.of(
                mysql()
                    ? "--read-from-remote-source=BINLOG-DUMP-GTIDS"
                    : "--read-from-remote-server",
                "--protocol=TCP",
                "--host=" + address.host(),
                "--port=" + address.port(),
                "--user=" + credentials.user(),
                "--password=" + credentials.password(),
                "--to-last-log"));
    arguments.addAll(List.of(options));
    arguments.add(firstFile);
    return run(address.toString(), arguments);
  }

  private Dump run(String seen, List<String> arguments) {
    List<String> command = new ArrayList<>();
    if (rootName == null) {
      command.add(Provisioning.executable(program, what).toString());
    } else {
      command.addAll(
          List.of(
              Provisioning.executable("chroot", "chroot (coreutils)").toString(),
              root().toString(),
              "/" + program));
    }
    command.addAll(List.of("--no-defaults", "--verify-binlog-checksum", "-vv"));
    command.addAll(arguments);
    try {
      Path output = Files.createTempFile("binlog-relay-binlog-tool-", ".out");
      try {
        CommandResult result =
            ChildProcesses.run(command, output.getParent(), output, null, TIMEOUT);
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
  public record Dump(BinlogTool tool, String file, String command, int exitCode, String output) {
    private static final Pattern MYSQL_GTID =
        Pattern.compile("SET @@SESSION\\.GTID_NEXT= '([^']+)'");
    private static final Pattern MARIADB_GTID = Pattern.compile("\tGTID (\\d+-\\d+-\\d+)");
    private static final Pattern COMMENT_LINE = Pattern.compile("^# (?!at )(.*)$");

    /**
     * The GTIDs of the file's transactions, in order, as the tool prints them (no AUTOMATIC or
     * ANONYMOUS).
     */
    public List<String> gtids() {
      List<String> out = new ArrayList<>();
      Matcher m = (tool.mysql() ? MYSQL_GTID : MARIADB_GTID).matcher(output);
      while (m.find()) {
        String g = m.group(1);
        if (!g.equals("AUTOMATIC") && !g.equals("ANONYMOUS")) {
          out.add(g);
        }
      }
      return out;
    }

    /**
     * The file's header set as the tool prints it: MySQL's Previous-GTIDs (on the "# " lines after
     * the event's line) or MariaDB's "Gtid list [...]" (which may continue on "# " lines); {@code
     * null} if there is none.
     */
    public String headerSet() {
      String[] lines = output.split("\n");
      for (int i = 0; i < lines.length; i++) {
        String line = lines[i];
        if (tool.mysql() && line.endsWith("\tPrevious-GTIDs")) {
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
        if (!tool.mysql() && at >= 0) {
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
    public boolean warnsInUse() {
      return output.contains("# Warning: this binlog is either in use or was not closed properly.");
    }

    /** The output with the file's path replaced, to compare runs on two copies of a file. */
    public String outputWithoutPath() {
      return output.replace(file, "FILE");
    }

    @Override
    public String toString() {
      String[] lines = output.split("\n");
      int from = Math.max(0, lines.length - 30);
      return command
          + " exited with "
          + exitCode
          + "; last lines:\n"
          + String.join("\n", List.of(lines).subList(from, lines.length));
    }
  }
}
