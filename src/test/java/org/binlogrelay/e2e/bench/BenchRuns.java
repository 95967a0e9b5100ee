package org.binlogrelay.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.bench.BenchCommand;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Test side: runs relay-bench as a user would (its command line) and returns the report it printed.
 */
public final class BenchRuns {
  private static final Logger LOG = LoggerFactory.getLogger(BenchRuns.class);

  private BenchRuns() {}

  /** {@code --host/--port/--user/--password} of a server's replication user. */
  static List<String> source(DatabaseServer server) {
    return List.of(
        "--host=" + server.address().host(),
        "--port=" + server.address().port(),
        "--user=" + server.replicationCredentials().user(),
        "--password=" + server.replicationCredentials().password());
  }

  /** The all-privileges user, for lag and stop-catchup which write and stop replicas. */
  public static List<String> admin(DatabaseServer primary, DatabaseServer replica) {
    return List.of(
        "--host=" + primary.address().host(),
        "--port=" + primary.address().port(),
        "--user=" + primary.credentials().user(),
        "--password=" + primary.credentials().password(),
        "--replica-host=" + replica.address().host(),
        "--replica-port=" + replica.address().port());
  }

  public static Report run(String subcommand, List<String> args) {
    BenchCommand command = new BenchCommand();
    CommandLine line = BenchCommand.commandLine(command);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    line.setOut(new PrintWriter(out));
    line.setErr(new PrintWriter(err));
    List<String> all = new ArrayList<>();
    all.add(subcommand);
    all.addAll(args);
    int rc = line.execute(all.toArray(String[]::new));
    LOG.info(
        "relay-bench {}:\n{}{}",
        String.join(" ", all).replaceAll("--password=\\S+", "--password=***"),
        out,
        err);
    assertThat(rc).as("relay-bench exit code; stderr: " + err).isZero();
    return command.report();
  }

  public static long number(Report report, String key) {
    return ((Number) report.value(key)).longValue();
  }

  public static double decimal(Report report, String key) {
    return ((Number) report.value(key)).doubleValue();
  }

  /** The pid in the server's mysqld.pid (local backend: next to its binlog directory). */
  static long pid(DatabaseServer server) throws Exception {
    Path pidFile = server.binlogDir().getParent().resolve("mysqld.pid");
    return Long.parseLong(Files.readString(pidFile).trim());
  }
}
