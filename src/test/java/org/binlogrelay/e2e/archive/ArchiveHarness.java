package org.binlogrelay.e2e.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.archive.objectstore.S3ObjectStore;
import org.binlogrelay.archive.objectstore.S3Settings;
import org.binlogrelay.archive.testing.S3FaultProxy;
import org.binlogrelay.archive.testing.S3ProxyProcess;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.upstream.RelayMainChild;
import org.binlogrelay.protocol.auth.PasswordHashes;
import org.binlogrelay.storage.BinlogFileName;

/**
 * Test side: what the archive ITs share. One relay ({@link RelayMainChild}, the whole relay in a
 * child JVM) started with {@code --archive s3://binlog-relay-test/<prefix>} against a real s3proxy
 * ({@link S3ProxyProcess}), through an {@link S3FaultProxy} so that every write the relay makes is
 * counted (and faults can be injected); the credentials in {@code AWS_ACCESS_KEY_ID}/{@code
 * AWS_SECRET_ACCESS_KEY} of the relay's environment, as an operator sets them. The archive is read
 * back with the archive module's own {@link S3ObjectStore} straight from s3proxy (not through the
 * fault proxy). A writer thread puts rows of about 48 KiB on the primary, so that 1 MiB binlog
 * files rotate every ~20 transactions. Replicas log in to the relay as {@link
 * Credentials#REPLICATION}. Not thread-safe, except {@link Writer}.
 */
final class ArchiveHarness implements AutoCloseable {
  /** Data objects under the prefix: {@code binlogs/<file>}. */
  static final String DATA = "binlogs/";

  /** Metadata objects under the prefix: {@code meta/<file>.meta}; their existence is "archived". */
  static final String META = "meta/";

  static final Duration ARCHIVED = Duration.ofSeconds(60);

  final S3ProxyProcess s3;
  final S3FaultProxy faults;
  final ObjectStore objects;
  final String prefix;

  private ArchiveHarness(S3ProxyProcess s3, S3FaultProxy faults, String prefix) {
    this.s3 = s3;
    this.faults = faults;
    this.prefix = prefix;
    this.objects =
        new S3ObjectStore(
            S3Settings.forBucket(S3ProxyProcess.BUCKET)
                .withEndpoint(s3.endpoint())
                .withRegion("us-east-1")
                .withPathStyle(true)
                .withStaticCredentials(S3ProxyProcess.IDENTITY, S3ProxyProcess.CREDENTIAL)
                .withTimeouts(
                    Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(60)));
  }

  /** s3proxy on a new data directory, a fault proxy in front of it, archive prefix {@code p/}. */
  static ArchiveHarness start(String prefix) throws IOException {
    S3ProxyProcess s3 = S3ProxyProcess.start();
    try {
      return new ArchiveHarness(s3, new S3FaultProxy(s3.endpoint()), prefix + "/");
    } catch (IOException | RuntimeException e) {
      s3.close();
      throw e;
    }
  }

  /** {@code s3://binlog-relay-test/<prefix>}. */
  String location() {
    return "s3://" + S3ProxyProcess.BUCKET + "/" + prefix.substring(0, prefix.length() - 1);
  }

  /** The relay's archive options: the location and endpoint (the fault proxy), and {@code more}. */
  List<String> archiveArgs(String... more) {
    List<String> args = new ArrayList<>();
    args.addAll(
        List.of(
            "--archive",
            location(),
            "--archive-endpoint",
            faults.endpoint().toString(),
            "--archive-region",
            "us-east-1",
            "--archive-path-style"));
    args.addAll(List.of(more));
    return args;
  }

  /** The credentials, in the relay's environment. */
  static Map<String, String> credentials() {
    return Map.of(
        "AWS_ACCESS_KEY_ID",
        S3ProxyProcess.IDENTITY,
        "AWS_SECRET_ACCESS_KEY",
        S3ProxyProcess.CREDENTIAL);
  }

  /**
   * Starts a relay on {@code dataDir} with the archive options and {@code more}, serving replicas
   * on {@code port}, the accounts file giving {@link Credentials#REPLICATION} the flavour's default
   * plugin.
   */
  RelayMainChild relay(DatabaseServer primary, Path dir, Path dataDir, int port, String... more)
      throws IOException {
    Path accounts = dir.resolve("accounts");
    if (!Files.exists(accounts)) {
      String hash =
          primary.flavor() == ServerFlavor.MYSQL
              ? PasswordHashes.cachingSha2(Credentials.REPLICATION.password())
              : PasswordHashes.nativePassword(Credentials.REPLICATION.password());
      Files.writeString(
          accounts,
          Credentials.REPLICATION.user()
              + "@% REPLICATION_SLAVE,REPLICATION_CLIENT "
              + hash
              + "\n");
    }
    List<String> args = new ArrayList<>(List.of("--accounts-file", accounts.toString()));
    args.addAll(archiveArgs(more));
    return RelayMainChild.start(
        primary, primary.address(), dir, dataDir, port, args, credentials());
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** The names with a metadata object (archived), in sequence order. */
  List<String> archivedNames() {
    List<String> names = new ArrayList<>();
    for (ObjectStore.ObjectInfo o : listAll(prefix + META)) {
      String name = o.key().substring((prefix + META).length());
      if (name.endsWith(".meta")) {
        names.add(name.substring(0, name.length() - ".meta".length()));
      }
    }
    names.sort(Comparator.comparingLong(BinlogFileName::sequence));
    return names;
  }

  /** Every key under the prefix. */
  List<String> keys() {
    return listAll(prefix).stream().map(ObjectStore.ObjectInfo::key).sorted().toList();
  }

  private List<ObjectStore.ObjectInfo> listAll(String under) {
    List<ObjectStore.ObjectInfo> all = new ArrayList<>();
    String after = null;
    while (true) {
      ObjectStore.ListPage page = objects.list(under, after);
      all.addAll(page.objects());
      if (!page.truncated() || page.objects().isEmpty()) {
        return all;
      }
      after = page.objects().get(page.objects().size() - 1).key();
    }
  }

  /** The data object of {@code name}. */
  byte[] archivedBytes(String name) {
    try (InputStream in = objects.get(prefix + DATA + name, 0, -1)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The primary's closed files (every file of SHOW BINARY LOGS but the last), in order. */
  static List<String> closedFiles(DatabaseServer primary) {
    List<String> all =
        primary.queryRows("SHOW BINARY LOGS").stream().map(r -> r.get("Log_name")).toList();
    return all.subList(0, all.size() - 1);
  }

  /** Waits until every name of {@code names} is archived (metadata object present). */
  void awaitArchived(List<String> names, Duration limit, RelayMainChild relay) throws Exception {
    try {
      eventually(
          limit,
          "the archive holding " + names,
          () -> {
            if (relay != null && !relay.isAlive()) {
              throw new AssertionError("the relay exited:\n" + relay.logTail(40));
            }
            return archivedNames();
          },
          archived -> archived.containsAll(names));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + (relay == null ? "" : "\n" + relay.logTail(40)), e);
    }
  }

  /**
   * Every archived file is one of the primary's closed files, byte for byte; every one of {@code
   * expected} is archived; each data and metadata object was written exactly once (the fault
   * proxy's count of completed writes, if {@code counted}); no multipart upload is left.
   */
  void assertArchiveIsThePrimarys(DatabaseServer primary, List<String> expected, boolean counted)
      throws IOException {
    List<String> archived = archivedNames();
    assertThat(archived).as("archived files").containsAll(expected);
    List<String> closed = closedFiles(primary);
    assertThat(closed).as("the primary's closed files").containsAll(archived);
    for (String name : archived) {
      byte[] want = Files.readAllBytes(primary.binlogDir().resolve(name));
      byte[] got = archivedBytes(name);
      assertThat(got.length).as(name + ": archived size").isEqualTo(want.length);
      assertThat(got).as(name + ": archived bytes = the primary's").isEqualTo(want);
      if (counted) {
        String bucketPath = "/" + S3ProxyProcess.BUCKET + "/" + prefix;
        assertThat(faults.completedWrites(bucketPath + DATA + name))
            .as(name + ": completed writes of the data object")
            .isEqualTo(1);
        assertThat(faults.completedWrites(bucketPath + META + name + ".meta"))
            .as(name + ": completed writes of the metadata object")
            .isEqualTo(1);
      }
    }
    assertThat(objects.listMultipartUploads(prefix)).as("multipart uploads left behind").isEmpty();
  }

  /** Local binlog files of a relay's data directory (name to size), in name order. */
  static Map<String, Long> localFiles(Path dataDir) throws IOException {
    Map<String, Long> files = new TreeMap<>();
    if (!Files.isDirectory(dataDir)) {
      return files;
    }
    try (var list = Files.list(dataDir)) {
      for (Path p : list.toList()) {
        String n = p.getFileName().toString();
        if (n.matches(".+\\.\\d{6,}") && Files.isRegularFile(p)) {
          files.put(n, Files.size(p));
        }
      }
    }
    return files;
  }

  /**
   * {@code mysqlbinlog --read-from-remote-server --raw} (MySQL 9.7's, in its chroot) of one file
   * from the relay at {@code port}; the bytes it wrote.
   */
  static byte[] mysqlbinlogRaw(int port, String name, Path dir) throws IOException {
    Path root = Provisioning.cacheDir().resolve("mysql-sid-root");
    String inRoot = "/tmp/binlog-relay-archive-" + System.nanoTime();
    Path out = root.resolve(inRoot.substring(1));
    Files.createDirectories(out);
    try {
      return rawDump(
          List.of(
              Provisioning.executable("chroot", "chroot (coreutils)").toString(),
              root.toString(),
              "mysqlbinlog"),
          inRoot,
          out,
          port,
          name,
          dir);
    } finally {
      try (var files = Files.list(out)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(out);
    }
  }

  /**
   * {@code mariadb-binlog --read-from-remote-server --raw} (the host's MariaDB client) of one file
   * from the relay at {@code port}; the bytes it wrote.
   */
  static byte[] mariadbBinlogRaw(int port, String name, Path dir) throws IOException {
    Path out = Files.createDirectories(dir.resolve("raw-" + System.nanoTime()));
    return rawDump(
        List.of(Provisioning.executable("mariadb-binlog", "mariadb-binlog").toString()),
        out.toString(),
        out,
        port,
        name,
        dir);
  }

  /**
   * Runs {@code tool} (a mysqlbinlog-compatible client) as a raw remote dump of {@code name} into
   * {@code resultDir} (as the tool sees it; {@code resultDirOnHost} is the same directory here).
   */
  private static byte[] rawDump(
      List<String> tool, String resultDir, Path resultDirOnHost, int port, String name, Path dir)
      throws IOException {
    List<String> command = new ArrayList<>(tool);
    command.addAll(
        List.of(
            "--no-defaults",
            "--protocol=TCP",
            "--host=127.0.0.1",
            "--port=" + port,
            "--user=" + Credentials.REPLICATION.user(),
            "--password=" + Credentials.REPLICATION.password(),
            "--read-from-remote-server",
            "--raw",
            "--result-file=" + resultDir + "/",
            name));
    String program = Path.of(tool.get(tool.size() - 1)).getFileName().toString();
    CommandResult result =
        ChildProcesses.run(
            command,
            dir,
            dir.resolve(program + "-" + name + "-" + System.nanoTime() + ".out"),
            null,
            Duration.ofMinutes(2));
    result.requireSuccess(program + " --raw " + name + " from the relay");
    return Files.readAllBytes(resultDirOnHost.resolve(name));
  }

  /** {@code SHOW BINARY LOGS} on the relay with MySQL 9.7's client: header row, then rows. */
  static List<List<String>> showBinaryLogs(int port, Path dir) {
    Path root = Provisioning.cacheDir().resolve("mysql-sid-root");
    return showBinaryLogs(
        List.of(
            Provisioning.executable("chroot", "chroot (coreutils)").toString(),
            root.toString(),
            "mysql"),
        port,
        dir);
  }

  /**
   * {@code SHOW BINARY LOGS} on the relay with the host's MariaDB client: header row, then rows.
   */
  static List<List<String>> mariadbShowBinaryLogs(int port, Path dir) {
    return showBinaryLogs(
        List.of(Provisioning.executable("mariadb", "mariadb (MariaDB client)").toString()),
        port,
        dir);
  }

  /** {@code SHOW BINARY LOGS} with {@code client} (the command up to the client program). */
  private static List<List<String>> showBinaryLogs(List<String> client, int port, Path dir) {
    List<String> command = new ArrayList<>(client);
    command.addAll(
        List.of(
            "--no-defaults",
            "--protocol=TCP",
            "-h127.0.0.1",
            "-P" + port,
            "-u" + Credentials.REPLICATION.user(),
            "-p" + Credentials.REPLICATION.password(),
            "--connect-timeout=10",
            "-B",
            "-e",
            "SHOW BINARY LOGS"));
    CommandResult result =
        ChildProcesses.run(
            command,
            dir,
            dir.resolve("show-binary-logs-" + System.nanoTime() + ".out"),
            null,
            Duration.ofSeconds(60));
    result.requireSuccess("SHOW BINARY LOGS on the relay");
    return result
        .output()
        .lines()
        .filter(l -> !l.startsWith("mysql: [Warning]"))
        .map(l -> List.of(l.split("\t", -1)))
        .toList();
  }

  /** Creates {@code arch.t} for {@link Writer}. */
  static void createSchema(DatabaseServer primary) {
    primary.execute(
        "CREATE DATABASE IF NOT EXISTS arch",
        "CREATE TABLE IF NOT EXISTS arch.t (id INT AUTO_INCREMENT PRIMARY KEY, v MEDIUMTEXT)");
  }

  /** Writes {@code rows} rows of ~48 KiB, one transaction each (about rows / 20 MiB of binlog). */
  static void write(DatabaseServer primary, int rows) {
    String[] statements = new String[rows];
    for (int i = 0; i < rows; i++) {
      statements[i] = "INSERT INTO arch.t (v) VALUES (REPEAT(SHA2(RAND(), 256), 768))";
    }
    primary.execute(statements);
  }

  /**
   * A background writer: one ~48 KiB row every 250 ms until stopped (a 1 MiB file closes about
   * every 5 s), so that ingest and serving are exercised while a fault lasts. Thread-safe.
   */
  static final class Writer implements AutoCloseable {
    private final AtomicLong rows = new AtomicLong();
    private final ScheduledExecutorService schedule =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "archive-it-writer");
              t.setDaemon(true);
              return t;
            });
    private volatile RuntimeException failure;

    Writer(DatabaseServer primary) {
      schedule.scheduleWithFixedDelay(
          () -> {
            try {
              write(primary, 1);
              rows.incrementAndGet();
            } catch (RuntimeException e) {
              failure = e;
              throw e; // ends the schedule
            }
          },
          0,
          250,
          TimeUnit.MILLISECONDS);
    }

    long rows() {
      return rows.get();
    }

    /** Stops and waits; rethrows a write that failed. */
    @Override
    public void close() throws InterruptedException {
      schedule.shutdown();
      schedule.awaitTermination(30, TimeUnit.SECONDS);
      if (failure != null) {
        throw failure;
      }
    }
  }

  @Override
  public void close() throws IOException {
    try {
      objects.close();
      faults.close();
    } finally {
      s3.close();
    }
  }
}
