package org.binlogrelay.e2e.downstream;

import static org.binlogrelay.protocol.testing.Eventually.steady;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.binlogrelay.e2e.servers.Credentials;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.ServerFlavor;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.server.DownstreamSettings;
import org.binlogrelay.server.Relay;
import org.binlogrelay.server.RelayConfig;
import org.binlogrelay.server.RelayStartException;
import org.binlogrelay.server.downstream.ReplicaServerConfig;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.SyncPolicy;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.retention.RetentionPolicy;

/**
 * A whole relay ({@link Relay}, the composition root the binary runs) in this JVM, in front of a
 * real primary: it follows the primary as {@code repl} and serves its SQL port on a free loopback
 * port with TLS ({@link TestCertificates}) to the harness's {@code repl}/{@code repl-pass} account
 * (REPLICATION SLAVE and CLIENT), hashed for the flavour's default plugin. What a JDBC client, a
 * CDC connector or a monitoring agent talks to. Thread-safe as {@link Relay} is.
 */
final class RelayInFront implements AutoCloseable {
  static final long SERVER_ID = 9101;

  private final DatabaseServer primary;
  private final Relay relay;

  private RelayInFront(DatabaseServer primary, Relay relay) {
    this.primary = primary;
    this.relay = relay;
  }

  static RelayInFront of(DatabaseServer primary, Path dir) throws RelayStartException {
    boolean mysql = primary.flavor() == ServerFlavor.MYSQL;
    Credentials repl = Credentials.REPLICATION;
    String hash =
        mysql
            ? CachingSha2Hash.create(repl.password(), 5000, new SecureRandom()).storedForm()
            : NativePasswordHash.of(repl.password()).storedForm();
    TestCertificates tls = TestCertificates.shared();
    DownstreamSettings downstream =
        new DownstreamSettings(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            SERVER_ID,
            UpstreamConfig.defaultReplicaUuid(SERVER_ID).toString(),
            UserAccounts.parse(
                repl.user() + "@% REPLICATION_SLAVE,REPLICATION_CLIENT " + hash + "\n"),
            new ReplicaServerConfig.TlsFiles(tls.certificatePem(), tls.privateKeyPem()),
            false);
    UpstreamConfig upstream =
        UpstreamConfig.builder(
                primary.address().host(), primary.address().port(), repl.user(), repl.password())
            .serverId(SERVER_ID)
            .report("127.0.0.1", 0)
            .heartbeatPeriod(Duration.ofMillis(500))
            .build();
    // No flavour given: the relay learns it, and the version it announces, from the primary's
    // greeting.
    RelayConfig config =
        new RelayConfig(
            dir.resolve("data"),
            null,
            SyncPolicy.everyTransaction(),
            RetentionPolicy.keepEverything(),
            RelayConfig.DEFAULT_RETENTION_INTERVAL,
            upstream,
            downstream,
            Duration.ofSeconds(30));
    Relay relay = new Relay(config, Time.SYSTEM);
    relay.start();
    return new RelayInFront(primary, relay);
  }

  Relay relay() {
    return relay;
  }

  int port() {
    return relay.replicaServer().port();
  }

  /**
   * A JDBC URL of the flavour's own driver (Connector/J for MySQL, MariaDB Connector/J for
   * MariaDB).
   */
  static String url(ServerFlavor flavor, int port) {
    return flavor == ServerFlavor.MYSQL
        ? "jdbc:mysql://127.0.0.1:"
            + port
            + "/?sslMode=REQUIRED&connectTimeout=5000&socketTimeout=60000"
        : "jdbc:mariadb://127.0.0.1:" + port + "/?connectTimeout=5000&socketTimeout=60000";
  }

  /** A session on the relay as {@code repl}. */
  Connection connect() throws SQLException {
    return DriverManager.getConnection(
        url(primary.flavor(), port()),
        Credentials.REPLICATION.user(),
        Credentials.REPLICATION.password());
  }

  /**
   * A session on the primary, with the same driver, as the harness's all-privileges {@code test}
   * account.
   */
  static Connection connectPrimary(DatabaseServer primary) throws SQLException {
    return DriverManager.getConnection(
        url(primary.flavor(), primary.address().port()),
        Credentials.TEST.user(),
        Credentials.TEST.password());
  }

  /**
   * Waits until the relay streams from the primary and its store ends where the primary's binlog
   * does, after the primary stayed at one position for a second (MariaDB writes a checkpoint event
   * a moment after a rotation).
   */
  Position awaitCaughtUp(Duration timeout) throws InterruptedException {
    return (Position)
        steady(
                timeout,
                Duration.ofSeconds(1),
                "the relay streaming with its store at "
                    + primary
                    + "'s position [primary, store, upstream status]",
                () ->
                    Arrays.asList(
                        primaryPosition(),
                        relay.store().readableEnd(),
                        relay.upstream().map(u -> u.state().status()).orElse(null)),
                seen -> seen.get(2) == UpstreamStatus.STREAMING && seen.get(0).equals(seen.get(1)))
            .get(1);
  }

  Position primaryPosition() {
    String statement =
        primary.flavor() == ServerFlavor.MYSQL ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS";
    Map<String, String> row = primary.queryRows(statement).get(0);
    return new Position(row.get("File"), Long.parseLong(row.get("Position")));
  }

  @Override
  public void close() {
    relay.close();
  }
}
