package org.binlogrelay.e2e.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Write load from {@code sysbench oltp_write_only} (1.0.20, Debian's, linked with MariaDB
 * Connector/C), against one server as {@link org.binlogrelay.e2e.servers.Credentials#TEST} over
 * TCP. Immutable; the {@code with...} methods return a modified copy. Every call is bounded in time
 * and fails, with sysbench's output, on a non-zero exit.
 *
 * <p>Authentication: on MySQL the test user has {@code caching_sha2_password} (MySQL 9 has no
 * {@code mysql_native_password}). Connector/C's {@code caching_sha2_password} plugin fetches the
 * server's RSA key by itself for the full authentication over plain TCP, so no TLS is needed;
 * sysbench's {@code --mysql-ssl=on} would instead want {@code client-key.pem}, {@code
 * client-cert.pem} and {@code cacert.pem} in its working directory.
 *
 * <pre>{@code
 * Sysbench load = Sysbench.against(primary).withTables(4).withTableSize(10_000);
 * load.prepare();
 * load.run(Duration.ofSeconds(10));
 * }</pre>
 */
public final class Sysbench {

  private static final Logger LOG = LoggerFactory.getLogger(Sysbench.class);
  private static final Duration PREPARE_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration RUN_GRACE = Duration.ofMinutes(2);

  private final DatabaseServer server;
  private final String schema;
  private final int tables;
  private final int tableSize;
  private final int threads;
  private final int rate;

  private Sysbench(
      DatabaseServer server, String schema, int tables, int tableSize, int threads, int rate) {
    if (!schema.matches("[A-Za-z0-9_]{1,64}")) {
      throw new IllegalArgumentException("Invalid schema name '" + schema + "' for sysbench");
    }
    if (tables < 1 || tableSize < 1 || threads < 1 || rate < 0) {
      throw new IllegalArgumentException(
          "Invalid sysbench settings: tables="
              + tables
              + ", tableSize="
              + tableSize
              + ", threads="
              + threads
              + ", rate="
              + rate);
    }
    this.server = server;
    this.schema = schema;
    this.tables = tables;
    this.tableSize = tableSize;
    this.threads = threads;
    this.rate = rate;
  }

  /** Schema {@code sbtest}, 4 tables of 10,000 rows, 2 threads, unthrottled. */
  public static Sysbench against(DatabaseServer server) {
    return new Sysbench(server, "sbtest", 4, 10_000, 2, 0);
  }

  public Sysbench withSchema(String newSchema) {
    return new Sysbench(server, newSchema, tables, tableSize, threads, rate);
  }

  public Sysbench withTables(int count) {
    return new Sysbench(server, schema, count, tableSize, threads, rate);
  }

  public Sysbench withTableSize(int rows) {
    return new Sysbench(server, schema, tables, rows, threads, rate);
  }

  public Sysbench withThreads(int count) {
    return new Sysbench(server, schema, tables, tableSize, count, rate);
  }

  /** Transactions per second over all threads; 0 for as fast as possible. */
  public Sysbench withRate(int transactionsPerSecond) {
    return new Sysbench(server, schema, tables, tableSize, threads, transactionsPerSecond);
  }

  public String schema() {
    return schema;
  }

  /** {@code sbtest1} ... {@code sbtestN}, without the schema. */
  public List<String> tableNames() {
    return IntStream.rangeClosed(1, tables).mapToObj(i -> "sbtest" + i).toList();
  }

  /** Creates the schema if needed and the tables with their rows. */
  public SysbenchResult prepare() {
    server.execute("CREATE DATABASE IF NOT EXISTS `" + schema + "`");
    return sysbench("prepare", List.of(), PREPARE_TIMEOUT);
  }

  /** Runs the write load for {@code duration}. */
  public SysbenchResult run(Duration duration) {
    if (duration.toSeconds() < 1) {
      throw new IllegalArgumentException(
          "Invalid sysbench duration " + duration + ": at least 1 s");
    }
    List<String> options =
        List.of(
            "--time=" + duration.toSeconds(),
            "--events=0",
            "--rate=" + rate,
            "--report-interval=0");
    return sysbench("run", options, duration.plus(RUN_GRACE));
  }

  /** Drops the tables. */
  public SysbenchResult cleanup() {
    return sysbench("cleanup", List.of(), PREPARE_TIMEOUT);
  }

  private SysbenchResult sysbench(String command, List<String> extraOptions, Duration timeout) {
    HostAndPort address = server.address();
    // "localhost" would make Connector/C use a Unix socket; the server is reached over TCP.
    String host = "localhost".equals(address.host()) ? "127.0.0.1" : address.host();
    List<String> arguments =
        new ArrayList<>(
            List.of(
                Provisioning.executable("sysbench", "sysbench").toString(),
                "oltp_write_only",
                "--db-driver=mysql",
                "--mysql-host=" + host,
                "--mysql-port=" + address.port(),
                "--mysql-user=" + server.credentials().user(),
                "--mysql-password=" + server.credentials().password(),
                "--mysql-db=" + schema,
                "--tables=" + tables,
                "--table-size=" + tableSize,
                "--threads=" + threads));
    arguments.addAll(extraOptions);
    arguments.add(command);
    Path workDir = null;
    try {
      workDir = Files.createTempDirectory("binlog-relay-sysbench-");
      CommandResult result =
          ChildProcesses.run(arguments, workDir, workDir.resolve("sysbench.out"), null, timeout);
      if (result.exitCode() != 0) {
        throw new ServerException(
            "sysbench "
                + command
                + " against "
                + server
                + " failed with exit code "
                + result.exitCode()
                + ":\n"
                + result.output());
      }
      LOG.info(
          "sysbench {} against {} ({} tables x {} rows, {} threads) took {} ms",
          command,
          server,
          tables,
          tableSize,
          threads,
          result.elapsed().toMillis());
      return new SysbenchResult(arguments, result.output(), result.elapsed());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot run sysbench " + command + " against " + server, e);
    } finally {
      deleteQuietly(workDir);
    }
  }

  private static void deleteQuietly(Path workDir) {
    if (workDir == null) {
      return;
    }
    try {
      Files.deleteIfExists(workDir.resolve("sysbench.out"));
      Files.deleteIfExists(workDir);
    } catch (IOException e) {
      // A leftover temporary directory is harmless; the result has the output.
    }
  }
}
