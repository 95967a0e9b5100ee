package org.binlogrelay.e2e.downstream;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.server.downstream.DumpConnection;
import org.binlogrelay.server.downstream.DumpHandler;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.downstream.RefusingDumpHandler;
import org.binlogrelay.server.downstream.ReplicaRegistration;
import org.binlogrelay.server.downstream.ReplicaServer;
import org.binlogrelay.server.downstream.ReplicaServerConfig;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.downstream.sql.MariadbSqlFlavor;
import org.binlogrelay.server.downstream.sql.MysqlSqlFlavor;
import org.binlogrelay.server.downstream.sql.SqlFlavor;
import org.binlogrelay.storage.Time;

/**
 * The relay's downstream server as tests run it: on a free loopback port, with TLS (a {@link
 * TestCertificates} certificate), the harness's credentials ({@code repl}/{@code repl-pass} with
 * REPLICATION SLAVE and CLIENT, {@code norepl}/{@code norepl-pass} without) hashed for the
 * flavour's default plugin, and a dump handler that records each request and then refuses it as
 * {@link RefusingDumpHandler} does. Thread-safe.
 */
final class ReplicaServerUnderTest implements AutoCloseable {

  /** A dump request and the registration that preceded it on the same connection (or null). */
  record Dump(DumpRequest request, ReplicaRegistration registration) {}

  private final ReplicaServer server;
  private final List<Dump> dumps = new CopyOnWriteArrayList<>();

  private ReplicaServerUnderTest(ServerFlavor flavor, BinlogListing binlogs, int maxFailedLogins) {
    boolean mysql = flavor == ServerFlavor.MYSQL;
    SqlFlavor dialect = mysql ? MysqlSqlFlavor.INSTANCE : MariadbSqlFlavor.INSTANCE;
    SecureRandom random = new SecureRandom();
    String accounts =
        "repl@% REPLICATION_SLAVE,REPLICATION_CLIENT "
            + hash(mysql, "repl-pass", random)
            + "\n"
            + "norepl@% - "
            + hash(mysql, "norepl-pass", random)
            + "\n"
            + "nat@% REPLICATION_SLAVE,REPLICATION_CLIENT "
            + NativePasswordHash.of("nat-pass").storedForm()
            + "\n"
            + "sha@% REPLICATION_SLAVE,REPLICATION_CLIENT "
            + CachingSha2Hash.create("sha-pass", 5000, random).storedForm()
            + "\n";
    TestCertificates tls = TestCertificates.shared();
    ReplicaServerConfig config =
        ReplicaServerConfig.builder(dialect)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .version(mysql ? "9.7.4-binlog-relay" : "10.11.19-MariaDB-binlog-relay")
            .serverId(4000)
            .serverUuid("4e6c6179-0000-4000-8000-000000004000")
            .accounts(UserAccounts.parse(accounts))
            .tls(new ReplicaServerConfig.TlsFiles(tls.certificatePem(), tls.privateKeyPem()))
            .loginThrottle(maxFailedLogins, Duration.ofMinutes(1), Duration.ofMinutes(1))
            .ioThreads(1)
            .build();
    DumpHandler recording =
        (DumpRequest request, DumpConnection connection) -> {
          dumps.add(new Dump(request, connection.registration().orElse(null)));
          new RefusingDumpHandler().dump(request, connection);
        };
    this.server = ReplicaServer.start(config, recording, binlogs, Time.SYSTEM);
  }

  static ReplicaServerUnderTest start(ServerFlavor flavor) {
    return new ReplicaServerUnderTest(flavor, BinlogListing.EMPTY, 1000);
  }

  static ReplicaServerUnderTest start(ServerFlavor flavor, BinlogListing binlogs) {
    return new ReplicaServerUnderTest(flavor, binlogs, 1000);
  }

  /**
   * caching_sha2_password for MySQL (its default), mysql_native_password for MariaDB (its default).
   */
  private static String hash(boolean mysql, String password, SecureRandom random) {
    return mysql
        ? CachingSha2Hash.create(password, 5000, random).storedForm()
        : NativePasswordHash.of(password).storedForm();
  }

  int port() {
    return server.port();
  }

  HostAndPort address() {
    return new HostAndPort("127.0.0.1", server.port());
  }

  List<Dump> dumps() {
    return List.copyOf(dumps);
  }

  @Override
  public void close() {
    server.close();
  }
}
