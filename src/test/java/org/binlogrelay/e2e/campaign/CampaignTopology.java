package org.binlogrelay.e2e.campaign;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.Tails;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ReplicaStatus;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.servers.local.LocalServer;
import org.binlogrelay.e2e.upstream.FaultyProxy;
import org.binlogrelay.protocol.auth.PasswordHashes;
import org.binlogrelay.server.RelayMain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test side: the campaign's topology, every part a real process on 127.0.0.1.
 *
 * <pre>
 *   primary (MySQL 9.7 | MariaDB 10.11 | MariaDB 11.8, max_binlog_size 1M)
 *      ^  upstream link: FaultyProxy
 *   relay (RelayMain child process, -Xmx256m, data directory on a tmpfs)
 *      ^  downstream link: FaultyProxy
 *   replica (same version; GTID auto-position, heartbeat 1 s, net timeout 4 s, relay_log_recovery)
 * </pre>
 *
 * The relay and the replica reach their sources only through the proxies, so both links can be cut,
 * stalled, slowed or half-opened. The relay's data directory is a tmpfs that can be filled ({@link
 * TmpfsDisk}). The primary's binlog files that were open when it was SIGKILLed are remembered
 * ({@link #crashEndedFiles()}): their in-use flag is cleared by the primary's crash recovery in
 * place, which no dump tells the relay.
 *
 * <p>Needs the local server backend ({@code -Dservers=local}) and root (tmpfs, signals to the
 * servers). Not thread-safe: the campaign thread drives it.
 */
final class CampaignTopology implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CampaignTopology.class);
  static final long RELAY_SERVER_ID = 9301;
  static final Duration START = Duration.ofMinutes(2);

  private final DatabaseServer primary;
  private final DatabaseServer replica;
  private final FaultyProxy upstream;
  private final RelayDisk disk;
  private final RelayDaemon relay;
  private final Path dataDir;
  private final HostAndPort admin;
  private final Set<String> crashEndedFiles = new TreeSet<>();
  private FaultyProxy downstream;

  private CampaignTopology(
      DatabaseServer primary,
      DatabaseServer replica,
      FaultyProxy upstream,
      RelayDisk disk,
      RelayDaemon relay,
      Path dataDir,
      HostAndPort admin) {
    this.primary = primary;
    this.replica = replica;
    this.upstream = upstream;
    this.disk = disk;
    this.relay = relay;
    this.dataDir = dataDir;
    this.admin = admin;
  }

  /**
   * Starts the servers, the relay (on a tmpfs of {@code diskBytes}) and replication through both
   * proxies; returns once the replica replicates from the relay.
   */
  static CampaignTopology start(ServerFarm farm, ServerVersion version, Path dir, long diskBytes)
      throws IOException, InterruptedException {
    return start(farm, version, dir, at -> TmpfsDisk.mount(at, diskBytes));
  }

  /**
   * As {@link #start(ServerFarm, ServerVersion, Path, long)}, with the relay's data directory on an
   * ext4 of {@code diskBytes} on a loop device ({@link LoopExt4Disk}): filling it fails the
   * device's writes.
   */
  static CampaignTopology startOnLoopDevice(
      ServerFarm farm, ServerVersion version, Path dir, long diskBytes)
      throws IOException, InterruptedException {
    return start(farm, version, dir, at -> LoopExt4Disk.mount(at, diskBytes));
  }

  private static CampaignTopology start(
      ServerFarm farm, ServerVersion version, Path dir, Function<Path, RelayDisk> mount)
      throws IOException, InterruptedException {
    boolean mysql = version.flavor() == ServerFlavor.MYSQL;
    DatabaseServer primary =
        farm.start(ServerSpec.of(version).named("primary").withMaxBinlogSize(1L << 20));
    DatabaseServer replica =
        farm.start(
            ServerSpec.of(version)
                .named("replica")
                .withOptions(
                    mysql ? "--replica-net-timeout=4" : "--slave-net-timeout=4",
                    "--relay-log-recovery=ON"));
    if (!(replica instanceof LocalServer)) {
      throw new IllegalStateException(
          "the fault campaign signals server processes and mounts a tmpfs: it needs"
              + " the local server backend (-Dservers=local) and root");
    }
    FaultyProxy upstream = new FaultyProxy(primary.address());
    RelayDisk disk = mount.apply(dir.resolve("relay-fs"));
    Path dataDir = disk.path().resolve("data");
    int port = quietPort();
    HostAndPort admin = new HostAndPort("127.0.0.1", quietPort());
    RelayDaemon relay =
        new RelayDaemon(
            relayCommand(primary, upstream.address(), dataDir, port, admin.port(), dir), dir);
    CampaignTopology topology =
        new CampaignTopology(primary, replica, upstream, disk, relay, dataDir, admin);
    try {
      relay.start();
      relay.awaitInLog("streaming from", 1, START);
      topology.downstream = new FaultyProxy(new HostAndPort("127.0.0.1", port));
      HostAndPort at = farm.backend().hostPortForServers(topology.downstream.address().port());
      replica.execute(replicationStatements(version.flavor(), at).toArray(String[]::new));
      topology.awaitReplicaHas(primary.executedGtidSet(), START);
      LOG.info(
          "campaign topology: {} <- proxy {} <- relay :{} (pid {}, data in {}) <- proxy {} <- {}",
          primary,
          upstream.address(),
          port,
          relay.current().pid(),
          dataDir,
          topology.downstream.address(),
          replica);
      return topology;
    } catch (IOException | InterruptedException | RuntimeException | Error e) {
      topology.close();
      throw e;
    }
  }

  private static List<String> replicationStatements(ServerFlavor flavor, HostAndPort relay) {
    Credentials c = Credentials.REPLICATION;
    if (flavor == ServerFlavor.MYSQL) {
      return List.of(
          "CHANGE REPLICATION SOURCE TO SOURCE_HOST='"
              + relay.host()
              + "', SOURCE_PORT="
              + relay.port()
              + ", SOURCE_USER='"
              + c.user()
              + "', SOURCE_PASSWORD='"
              + c.password()
              + "'"
              + ", SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1, SOURCE_CONNECT_RETRY=1"
              + ", SOURCE_RETRY_COUNT=86400, SOURCE_HEARTBEAT_PERIOD=1",
          "START REPLICA");
    }
    return List.of(
        "CHANGE MASTER TO MASTER_HOST='"
            + relay.host()
            + "', MASTER_PORT="
            + relay.port()
            + ", MASTER_USER='"
            + c.user()
            + "', MASTER_PASSWORD='"
            + c.password()
            + "'"
            + ", MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1, MASTER_HEARTBEAT_PERIOD=1",
        "START SLAVE");
  }

  /**
   * The relay's command line, as docs/running.md shows it: password file, accounts file with the
   * flavour's default hash for {@code repl}, TLS (MySQL 9.7 and MariaDB 11.8 replicas insist on it;
   * 10.11 replicas do not ask for it), heartbeat 500 ms (a dead primary link is noticed after 1.5
   * s), the relay's own logback.xml; -Xmx256m and ExitOnOutOfMemoryError, so that running out of
   * memory is a death the campaign sees.
   */
  private static List<String> relayCommand(
      DatabaseServer primary, HostAndPort via, Path dataDir, int port, int adminPort, Path dir)
      throws IOException {
    boolean mysql = primary.flavor() == ServerFlavor.MYSQL;
    Path password =
        Files.writeString(
            dir.resolve("primary-password"), primary.replicationCredentials().password() + "\n");
    String pass = Credentials.REPLICATION.password();
    Path accounts =
        Files.writeString(
            dir.resolve("accounts"),
            Credentials.REPLICATION.user()
                + "@% REPLICATION_SLAVE,REPLICATION_CLIENT "
                + (mysql ? PasswordHashes.cachingSha2(pass) : PasswordHashes.nativePassword(pass))
                + "\n");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx256m",
                "-XX:+ExitOnOutOfMemoryError",
                "-Dlogback.configurationFile=" + logbackXml(),
                "-cp",
                classpath,
                RelayMain.class.getName(),
                "--primary",
                via.host() + ":" + via.port(),
                "--primary-user",
                primary.replicationCredentials().user(),
                "--primary-password-file",
                password.toString(),
                "--server-id",
                Long.toString(RELAY_SERVER_ID),
                "--data-dir",
                dataDir.toString(),
                "--port",
                Integer.toString(port),
                "--admin-port",
                Integer.toString(adminPort),
                "--accounts-file",
                accounts.toString(),
                "--heartbeat-period",
                "500ms"));
    Path[] tls = certificate(dir);
    command.addAll(List.of("--ssl-cert", tls[0].toString(), "--ssl-key", tls[1].toString()));
    return command;
  }

  /**
   * The relay's own logging configuration (the test classpath would otherwise pick
   * logback-test.xml).
   */
  private static String logbackXml() {
    Path file =
        Path.of(
            System.getProperty("binlogrelay.repo", ".."),
            "server",
            "src",
            "main",
            "resources",
            "logback.xml");
    return Files.exists(file) ? file.toAbsolutePath().toString() : "logback.xml";
  }

  private static Path[] certificate(Path dir) {
    ChildProcesses.run(
            List.of(
                Provisioning.executable("openssl", "openssl").toString(),
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                dir.resolve("key.pem").toString(),
                "-out",
                dir.resolve("cert.pem").toString(),
                "-days",
                "2",
                "-subj",
                "/CN=binlog-relay-campaign"),
            dir,
            dir.resolve("openssl.out"),
            null,
            Duration.ofSeconds(60))
        .requireSuccess("openssl req -x509");
    return new Path[] {dir.resolve("cert.pem"), dir.resolve("key.pem")};
  }

  /**
   * A free loopback port below the kernel's ephemeral range (32768-60999), so that no outgoing
   * connection takes it while the relay is down between a kill and its restart on the same port.
   */
  private static int quietPort() {
    Random random = new Random();
    for (int attempt = 0; attempt < 100; attempt++) {
      int port = 20_000 + random.nextInt(12_000);
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return port;
      } catch (IOException e) {
        // taken: try another
      }
    }
    throw new IllegalStateException("no free loopback port in 20000-31999 after 100 attempts");
  }

  DatabaseServer primary() {
    return primary;
  }

  DatabaseServer replica() {
    return replica;
  }

  RelayDaemon relay() {
    return relay;
  }

  /** The link relay -> primary. */
  FaultyProxy upstreamLink() {
    return upstream;
  }

  /** The link replica -> relay. */
  FaultyProxy downstreamLink() {
    return downstream;
  }

  RelayDisk disk() {
    return disk;
  }

  /** The relay's admin API and /metrics (no token, on 127.0.0.1). */
  HostAndPort relayAdmin() {
    return admin;
  }

  Path relayDataDir() {
    return dataDir;
  }

  /** The primary's files that were open when it was SIGKILLed. */
  Set<String> crashEndedFiles() {
    return Set.copyOf(crashEndedFiles);
  }

  /** SIGKILLs the primary and remembers the file it was writing (the last one of its index). */
  String killPrimary() {
    primary.kill();
    String last = null;
    try {
      for (String line :
          Files.readAllLines(primary.binlogDir().resolve("binlog.index"), StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          last = Path.of(line.strip()).getFileName().toString();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    crashEndedFiles.add(last);
    return last;
  }

  /** The replica's mysqld/mariadbd process id, from its pid file. */
  long replicaPid() {
    Path pidFile = ((LocalServer) replica).directory().resolve("mysqld.pid");
    try {
      return Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).strip());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs the statement of the replica's flavour. */
  void onReplica(String mysql, String mariadb) {
    replica.execute(replica.flavor() == ServerFlavor.MYSQL ? mysql : mariadb);
  }

  /**
   * Waits until the replica has executed {@code gtids} (a value of the primary's executed-GTID
   * query); returns how long it took in ms. Fails after {@code timeout}, and at once if the
   * replica's applier stopped with an error, the relay refused it with error 1236, or the relay
   * died on its own.
   */
  long awaitReplicaHas(String gtids, Duration timeout) throws InterruptedException {
    long started = System.nanoTime();
    try {
      eventually(
          timeout,
          replica + " executing " + gtids,
          () -> {
            relay.requireNoUnexpectedEnd();
            if (replica.flavor().dialect().hasExecuted(replica, gtids)) {
              return true;
            }
            ReplicaStatus status = ReplicaStatus.of(replica);
            if (status.lastSqlErrno() != 0 || status.lastIoErrno() == 1236) {
              throw new AssertionError(replica + " stopped short of " + gtids);
            }
            return false;
          });
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + " (it has "
              + replica.executedGtidSet()
              + ")\n"
              + ReplicaStatus.of(replica).summary()
              + replica.errorLogTail(30)
              + "\nrelay log:\n"
              + Tails.of(relay.current().log(), 30),
          e);
    }
    return (System.nanoTime() - started) / 1_000_000;
  }

  @Override
  public void close() throws IOException {
    try {
      relay.close();
    } finally {
      try {
        if (downstream != null) {
          downstream.close();
        }
        upstream.close();
      } finally {
        disk.close();
      }
    }
  }
}
