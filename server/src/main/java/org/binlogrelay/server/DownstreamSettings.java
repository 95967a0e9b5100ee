package org.binlogrelay.server;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import org.binlogrelay.server.downstream.ReplicaServerConfig;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.downstream.sql.SqlFlavor;
import org.binlogrelay.server.downstream.sql.SystemVariable;

/**
 * How the relay serves replicas, before it knows whether it acts as a MySQL or a MariaDB server:
 * the {@link SqlFlavor} comes from the store's flavour, which may be detected at start ({@link
 * #toConfig}). Immutable.
 *
 * @param bind the address and port replicas connect to ({@code --bind-address}, {@code --port});
 *     port 0 binds any free port
 * @param serverId the relay's {@code server_id}, which replicas see (also the one it registers with
 *     upstream)
 * @param serverUuid the relay's {@code server_uuid}
 * @param accounts who may log in
 * @param tls the certificate chain and key for TLS, {@code null} for none
 * @param autoGenerateCerts without {@code tls}, offer TLS with a certificate generated at start
 *     ({@code --auto-generate-certs}, as MySQL's {@code auto_generate_certs})
 * @param requireSecureTransport refuse logins that did not start TLS
 * @param maxConnections connections to the replica port beyond this get ER_CON_COUNT_ERROR ({@code
 *     --max-connections})
 * @param maxConnectRatePerHost new connections a second per client host ({@code
 *     --max-connect-rate-per-host}); 0 for no limit
 * @param sendBufferBytes {@code SO_SNDBUF} of replica connections ({@code --replica-send-buffer});
 *     0 lets the operating system size it
 * @param sharedBatches whether caught-up replicas share reads and framing ({@code
 *     --serving-shared-batches})
 * @param ioThreads the event loops that serve replica connections ({@code --replica-io-threads})
 */
public record DownstreamSettings(
    InetSocketAddress bind,
    long serverId,
    String serverUuid,
    UserAccounts accounts,
    ReplicaServerConfig.TlsFiles tls,
    boolean autoGenerateCerts,
    boolean requireSecureTransport,
    int maxConnections,
    int maxConnectRatePerHost,
    int sendBufferBytes,
    boolean sharedBatches,
    int ioThreads) {

  /** {@code --max-connections} by default. */
  public static final int DEFAULT_MAX_CONNECTIONS = 256;

  /** The most {@code --replica-io-threads} accepts. */
  public static final int MAX_IO_THREADS = 256;

  /**
   * {@code --replica-io-threads} by default: 8, or twice the processors where that is more. A loop
   * writes each new batch to its caught-up replicas one after another, so more loops than cores
   * shorten the wait of the last replica of a loop; with 100 tailing replicas on 2 cores, 8 loops
   * halved the relay's p99 lag against 2 (docs/benchmarks.md, fan-out).
   */
  public static int defaultIoThreads() {
    return Math.max(8, 2 * Runtime.getRuntime().availableProcessors());
  }

  /** As the canonical constructor, with {@link #defaultIoThreads()} event loops. */
  public DownstreamSettings(
      InetSocketAddress bind,
      long serverId,
      String serverUuid,
      UserAccounts accounts,
      ReplicaServerConfig.TlsFiles tls,
      boolean autoGenerateCerts,
      boolean requireSecureTransport,
      int maxConnections,
      int maxConnectRatePerHost,
      int sendBufferBytes,
      boolean sharedBatches) {
    this(
        bind,
        serverId,
        serverUuid,
        accounts,
        tls,
        autoGenerateCerts,
        requireSecureTransport,
        maxConnections,
        maxConnectRatePerHost,
        sendBufferBytes,
        sharedBatches,
        defaultIoThreads());
  }

  /**
   * Settings with the default connection limit, without a connection rate limit and with the
   * operating system's send buffer sizing; a certificate is generated without {@code tls}.
   */
  public DownstreamSettings(
      InetSocketAddress bind,
      long serverId,
      String serverUuid,
      UserAccounts accounts,
      ReplicaServerConfig.TlsFiles tls,
      boolean requireSecureTransport) {
    this(
        bind,
        serverId,
        serverUuid,
        accounts,
        tls,
        true,
        requireSecureTransport,
        DEFAULT_MAX_CONNECTIONS,
        0,
        0,
        true);
  }

  /** Settings that generate a certificate without {@code tls}, as the relay does by default. */
  public DownstreamSettings(
      InetSocketAddress bind,
      long serverId,
      String serverUuid,
      UserAccounts accounts,
      ReplicaServerConfig.TlsFiles tls,
      boolean requireSecureTransport,
      int maxConnections,
      int maxConnectRatePerHost,
      int sendBufferBytes) {
    this(
        bind,
        serverId,
        serverUuid,
        accounts,
        tls,
        true,
        requireSecureTransport,
        maxConnections,
        maxConnectRatePerHost,
        sendBufferBytes,
        true);
  }

  /** Settings with shared batches on ({@code --serving-shared-batches}'s default). */
  public DownstreamSettings(
      InetSocketAddress bind,
      long serverId,
      String serverUuid,
      UserAccounts accounts,
      ReplicaServerConfig.TlsFiles tls,
      boolean autoGenerateCerts,
      boolean requireSecureTransport,
      int maxConnections,
      int maxConnectRatePerHost,
      int sendBufferBytes) {
    this(
        bind,
        serverId,
        serverUuid,
        accounts,
        tls,
        autoGenerateCerts,
        requireSecureTransport,
        maxConnections,
        maxConnectRatePerHost,
        sendBufferBytes,
        true);
  }

  public DownstreamSettings {
    Objects.requireNonNull(bind, "bind");
    Objects.requireNonNull(serverUuid, "serverUuid");
    Objects.requireNonNull(accounts, "accounts");
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          "--max-connections " + maxConnections + " must be at least 1");
    }
    if (maxConnectRatePerHost < 0) {
      throw new IllegalArgumentException(
          "--max-connect-rate-per-host " + maxConnectRatePerHost + " is negative");
    }
    if (sendBufferBytes < 0) {
      throw new IllegalArgumentException(
          "--replica-send-buffer " + sendBufferBytes + " is negative");
    }
    if (ioThreads < 1 || ioThreads > MAX_IO_THREADS) {
      throw new IllegalArgumentException(
          "--replica-io-threads " + ioThreads + " is outside 1.." + MAX_IO_THREADS);
    }
    if (requireSecureTransport && tls == null && !autoGenerateCerts) {
      throw new IllegalArgumentException(
          "--require-secure-transport needs TLS: a certificate and key (--ssl-cert and"
              + " --ssl-key) or --auto-generate-certs");
    }
  }

  /**
   * The downstream server's configuration for {@code dialect}.
   *
   * @param version the server version to announce ({@link
   *     org.binlogrelay.server.downstream.AnnouncedVersion})
   */
  public ReplicaServerConfig toConfig(SqlFlavor dialect, String version) {
    return toConfig(dialect, version, List.of());
  }

  /**
   * The downstream server's configuration for {@code dialect}, with {@code variables} added to or
   * replacing the dialect's (the relay's own retention and sync settings).
   */
  public ReplicaServerConfig toConfig(
      SqlFlavor dialect, String version, List<SystemVariable> variables) {
    ReplicaServerConfig.Builder builder =
        ReplicaServerConfig.builder(dialect)
            .extraVariables(variables)
            .version(version)
            .bind(bind)
            .serverId(serverId)
            .serverUuid(serverUuid)
            .accounts(accounts)
            .autoGenerateCertificate(autoGenerateCerts)
            .requireSecureTransport(requireSecureTransport)
            .maxConnections(maxConnections)
            .maxConnectRatePerHost(maxConnectRatePerHost)
            .sendBufferBytes(sendBufferBytes)
            .ioThreads(ioThreads);
    if (tls != null) {
      builder.tls(tls);
    }
    return builder.build();
  }
}
