package org.binlogrelay.e2e.serving;

import static org.binlogrelay.protocol.testing.Eventually.eventually;
import static org.binlogrelay.protocol.testing.Eventually.steady;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.downstream.ReplicaServer;
import org.binlogrelay.server.downstream.ReplicaServerConfig;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.downstream.sql.MariadbSqlFlavor;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.binlogrelay.server.serving.ServingConfig;
import org.binlogrelay.server.serving.StoreBinlogListing;
import org.binlogrelay.server.serving.StoreDumpHandler;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.ReaderRegistry;

/**
 * Test side: a whole relay composed here (until {@code Relay} exists): a {@link BinlogStore} in a
 * directory of the test, an {@link UpstreamReplicator} following a real primary into it, and the
 * downstream {@link ReplicaServer} on a free loopback port serving the store with {@link
 * StoreDumpHandler} and {@link StoreBinlogListing}. TLS with a self-signed certificate (MySQL 9.7
 * replicas insist on TLS); the harness's {@code repl}/{@code repl-pass} account hashed for the
 * flavour's default plugin, and {@link #PLAIN} with {@code mysql_native_password}. The relay's
 * server_id is 9001 upstream and downstream (chained relays: 9002, ...), and for MySQL its
 * primary's UUID is the source checked for replicas with more GTIDs than the store.
 */
final class ServingRelay implements AutoCloseable {
  static final long SERVER_ID = 9001;

  /**
   * An extra account with mysql_native_password, for clients without TLS (zero copy) and for
   * chained relays.
   */
  static final Credentials PLAIN = new Credentials("plain", "plain-pass");

  private static Path certificateDir;

  private final DatabaseServer primary;
  private final BinlogStore store;
  private final UpstreamReplicator upstream;
  private final StoreDumpHandler dumps;
  private final ReplicaServer server;
  private final ReaderRegistry readers = new ReaderRegistry();

  private ServingRelay(
      DatabaseServer primary,
      HostAndPort source,
      Credentials credentials,
      long serverId,
      Path directory,
      Consumer<ServingConfig.Builder> tweak,
      Consumer<ReplicaServerConfig.Builder> serverTweak)
      throws IOException {
    this.primary = primary;
    boolean mysql = primary.flavor() == ServerFlavor.MYSQL;
    this.store =
        BinlogStore.open(
            StoreConfig.builder(directory, mysql ? GtidFlavor.MYSQL : GtidFlavor.MARIADB).build());
    UpstreamConfig upstreamConfig =
        UpstreamConfig.builder(
                source.host(), source.port(), credentials.user(), credentials.password())
            .serverId(serverId)
            .report("127.0.0.1", 0)
            .heartbeatPeriod(Duration.ofMillis(500))
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    this.upstream = new UpstreamReplicator(upstreamConfig, store);
    upstream.start();
    Set<UUID> checked =
        mysql
            ? Set.of(UUID.fromString(primary.queryValue("SELECT @@global.server_uuid")))
            : Set.of();
    ServingConfig.Builder serving =
        ServingConfig.builder(serverId).readers(readers).checkedSources(() -> checked);
    tweak.accept(serving);
    this.dumps = new StoreDumpHandler(store, serving.build());
    Path[] tls = certificate();
    SecureRandom random = new SecureRandom();
    String hash =
        mysql
            ? CachingSha2Hash.create("repl-pass", 5000, random).storedForm()
            : NativePasswordHash.of("repl-pass").storedForm();
    ReplicaServerConfig.Builder config =
        ReplicaServerConfig.builder(mysql ? MysqlSqlFlavor.INSTANCE : MariadbSqlFlavor.INSTANCE)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .version(mysql ? "9.7.4-binlog-relay" : "10.11.19-MariaDB-binlog-relay")
            .serverId(serverId)
            .serverUuid("4e6c6179-0000-4000-8000-00000000" + serverId)
            .accounts(
                UserAccounts.parse(
                    "repl@% REPLICATION_SLAVE,REPLICATION_CLIENT "
                        + hash
                        + "\n"
                        + "plain@% REPLICATION_SLAVE,REPLICATION_CLIENT "
                        + NativePasswordHash.of(PLAIN.password()).storedForm()
                        + "\n"))
            .tls(new ReplicaServerConfig.TlsFiles(tls[0], tls[1]))
            .ioThreads(2);
    serverTweak.accept(config);
    this.server =
        ReplicaServer.start(config.build(), dumps, new StoreBinlogListing(store), Time.SYSTEM);
  }

  static ServingRelay follow(DatabaseServer primary, Path directory) throws IOException {
    return follow(primary, directory, b -> {});
  }

  static ServingRelay follow(
      DatabaseServer primary, Path directory, Consumer<ServingConfig.Builder> tweak)
      throws IOException {
    return follow(primary, directory, tweak, b -> {});
  }

  /**
   * A relay whose serving and downstream server configurations {@code tweak} and {@code
   * serverTweak} adjust.
   */
  static ServingRelay follow(
      DatabaseServer primary,
      Path directory,
      Consumer<ServingConfig.Builder> tweak,
      Consumer<ReplicaServerConfig.Builder> serverTweak)
      throws IOException {
    return new ServingRelay(
        primary,
        primary.address(),
        primary.replicationCredentials(),
        SERVER_ID,
        directory,
        tweak,
        serverTweak);
  }

  /**
   * A relay following {@code upstream}, another relay of the same primary, with its own server_id.
   */
  static ServingRelay chain(ServingRelay upstream, long serverId, Path directory)
      throws IOException {
    return new ServingRelay(
        upstream.primary, upstream.address(), PLAIN, serverId, directory, b -> {}, b -> {});
  }

  /** Where replicas on this machine reach the relay. */
  HostAndPort address() {
    return new HostAndPort("127.0.0.1", server.port());
  }

  int port() {
    return server.port();
  }

  /** Logins over TLS the relay's downstream server completed. */
  long tlsLogins() {
    return server.tlsLogins();
  }

  /** The certificate the relay presents to TLS clients (configured or generated). */
  X509Certificate tlsCertificate() {
    return server.tlsCertificate().orElseThrow(() -> new AssertionError(this + " offers no TLS"));
  }

  BinlogStore store() {
    return store;
  }

  StoreDumpHandler dumps() {
    return dumps;
  }

  ReaderRegistry readers() {
    return readers;
  }

  UpstreamReplicator upstream() {
    return upstream;
  }

  /** Waits until the store's readable end is the primary's current position. */
  Position awaitCaughtUp(Duration timeout) throws InterruptedException {
    return eventually(
            timeout,
            "the store's end at " + primary + "'s position [primary, store]",
            () -> {
              List<Position> both = Arrays.asList(primaryPosition(), store.readableEnd());
              if (upstream.state().status() == UpstreamStatus.FAILED) {
                throw new AssertionError(
                    "the upstream failed while catching up: [primary, store] "
                        + both
                        + ", "
                        + upstream.state());
              }
              return both;
            },
            both -> both.get(0).equals(both.get(1)))
        .get(1);
  }

  /**
   * Waits until the primary's position stayed the same for a second (MariaDB writes a
   * BINLOG_CHECKPOINT event into a new file a moment after it rotated), then until the relay has it
   * all.
   */
  Position awaitQuietAndCaughtUp(Duration timeout) throws InterruptedException {
    steady(timeout, Duration.ofSeconds(1), primary + "'s position", this::primaryPosition);
    return awaitCaughtUp(timeout);
  }

  /** The primary's current binlog file and offset. */
  Position primaryPosition() {
    String statement =
        primary.flavor() == ServerFlavor.MYSQL ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS";
    Map<String, String> row = primary.queryRows(statement).get(0);
    return new Position(row.get("File"), Long.parseLong(row.get("Position")));
  }

  /** Waits until every file but the last is closed and durable, so that it may be removed. */
  void awaitSettled(Duration timeout) throws Exception {
    store.sync().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    eventually(
        timeout,
        "the store settled (files closed and durable)",
        store::files,
        files ->
            files.subList(0, Math.max(0, files.size() - 1)).stream().allMatch(f -> f.closed())
                && !store.durableEnd().isBefore(store.readableEnd()));
  }

  @Override
  public void close() throws IOException {
    server.close();
    try {
      upstream.stop(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    store.close();
  }

  /** A self-signed certificate and key made once per JVM with the openssl command line. */
  private static synchronized Path[] certificate() throws IOException {
    if (certificateDir == null) {
      Path dir = Files.createTempDirectory("binlog-relay-serving-tls-");
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
                  "/CN=binlog-relay-serving"),
              dir,
              dir.resolve("openssl.out"),
              null,
              Duration.ofSeconds(60))
          .requireSuccess("openssl req -x509");
      for (String name : List.of("key.pem", "cert.pem", "openssl.out")) {
        dir.resolve(name).toFile().deleteOnExit();
      }
      dir.toFile().deleteOnExit();
      certificateDir = dir;
    }
    return new Path[] {certificateDir.resolve("cert.pem"), certificateDir.resolve("key.pem")};
  }

  @Override
  public String toString() {
    return "relay of " + primary + " at " + address();
  }
}
