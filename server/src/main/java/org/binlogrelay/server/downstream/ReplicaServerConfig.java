package org.binlogrelay.server.downstream;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.downstream.sql.ServerIdentity;
import org.binlogrelay.server.downstream.sql.SqlFlavor;
import org.binlogrelay.server.downstream.sql.SystemVariable;

/**
 * Everything the downstream server needs to know before it listens. Immutable; make one with {@link
 * #builder(SqlFlavor)}.
 *
 * @param bind where to listen; loopback by default, so exposing the relay is a deliberate choice
 * @param dialect MySQL or MariaDB behaviour, the upstream's flavour
 * @param identity version, server id, uuid, and the limits reported in variables
 * @param accounts who may log in (hashes only)
 * @param tls PEM certificate chain and unencrypted PKCS#8 key for TLS, or null for none
 * @param autoGenerateCertificate without {@code tls}, offer TLS with a self-signed certificate
 *     generated in memory at start (MySQL's {@code auto_generate_certs}, MariaDB 11.4+'s
 *     zero-configuration TLS); false: no TLS without {@code tls}
 * @param requireSecureTransport refuse logins that did not start TLS (ER_SECURE_TRANSPORT_REQUIRED)
 * @param rsaPrivateKey PEM RSA key for caching_sha2_password over plain TCP, or null to generate
 *     one at start
 * @param maxConnections connections beyond this get ER_CON_COUNT_ERROR (1040) before the greeting
 * @param maxPacketBytes the largest logical packet accepted (also {@code @@max_allowed_packet})
 * @param connectTimeout how long a client may take to log in
 * @param idleTimeout how long a logged-in connection that is not dumping may stay silent
 *     ({@code @@wait_timeout})
 * @param maxFailedLogins failed logins from one host within {@code failedLoginWindow} before it is
 *     blocked
 * @param failedLoginWindow see {@code maxFailedLogins}
 * @param blockDuration how long a host stays blocked after its last failed login
 * @param extraVariables variables added to or replacing the dialect's defaults
 * @param ioThreads event-loop threads
 * @param authThreads threads for the expensive steps of logins (SHA-256-crypt, RSA), off the event
 *     loops
 * @param maxConnectRatePerHost new connections a second one client host may open on average (bursts
 *     of ten seconds' worth), more get ER_CON_COUNT_ERROR before the greeting; 0 for no limit
 * @param sendBufferBytes {@code SO_SNDBUF} of replica connections; 0 leaves it to the operating
 *     system's automatic sizing (up to {@code net.ipv4.tcp_wmem}'s maximum on Linux)
 */
public record ReplicaServerConfig(
    InetSocketAddress bind,
    SqlFlavor dialect,
    ServerIdentity identity,
    UserAccounts accounts,
    TlsFiles tls,
    boolean autoGenerateCertificate,
    boolean requireSecureTransport,
    Path rsaPrivateKey,
    int maxConnections,
    int maxPacketBytes,
    Duration connectTimeout,
    Duration idleTimeout,
    int maxFailedLogins,
    Duration failedLoginWindow,
    Duration blockDuration,
    List<SystemVariable> extraVariables,
    int ioThreads,
    int authThreads,
    int maxConnectRatePerHost,
    int sendBufferBytes) {

  /** A PEM certificate chain and its unencrypted PKCS#8 private key ({@code BEGIN PRIVATE KEY}). */
  public record TlsFiles(Path certificateChain, Path privateKey) {
    public TlsFiles {
      Objects.requireNonNull(certificateChain, "certificateChain");
      Objects.requireNonNull(privateKey, "privateKey");
    }
  }

  public ReplicaServerConfig {
    Objects.requireNonNull(bind, "bind");
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(accounts, "accounts");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    extraVariables = List.copyOf(extraVariables);
    if (requireSecureTransport && tls == null && !autoGenerateCertificate) {
      throw new IllegalArgumentException(
          "requireSecureTransport needs TLS: TLS files or an auto-generated certificate");
    }
    if (maxConnectRatePerHost < 0) {
      throw new IllegalArgumentException(
          "maxConnectRatePerHost must not be negative: " + maxConnectRatePerHost);
    }
    if (sendBufferBytes < 0) {
      throw new IllegalArgumentException(
          "sendBufferBytes must not be negative: " + sendBufferBytes);
    }
    if (maxConnections < 1
        || maxPacketBytes < 1024
        || ioThreads < 1
        || authThreads < 1
        || maxFailedLogins < 1) {
      throw new IllegalArgumentException(
          "maxConnections, ioThreads, authThreads and maxFailedLogins must be positive"
              + " and maxPacketBytes at least 1024: "
              + maxConnections
              + ", "
              + ioThreads
              + ", "
              + authThreads
              + ", "
              + maxFailedLogins
              + ", "
              + maxPacketBytes);
    }
  }

  public static Builder builder(SqlFlavor dialect) {
    return new Builder(dialect);
  }

  /**
   * Builds a config from defaults: loopback:3306, TLS with a certificate generated at start, 256
   * connections, 64 MiB packets, 10 s login, 8 h idle, 2 I/O and 2 auth threads.
   */
  public static final class Builder {
    private InetSocketAddress bind = new InetSocketAddress(InetAddress.getLoopbackAddress(), 3306);
    private final SqlFlavor dialect;
    private String version;
    private String versionComment = "binlog-relay";
    private long serverId = 1;
    private String serverUuid = "00000000-0000-0000-0000-000000000000";
    private long gtidDomainId;
    private UserAccounts accounts = new UserAccounts(List.of());
    private TlsFiles tls;
    private boolean autoGenerateCertificate = true;
    private boolean requireSecureTransport;
    private Path rsaPrivateKey;
    private int maxConnections = 256;
    private int sendBufferBytes;
    private int maxConnectRatePerHost;
    private int maxPacketBytes = 64 << 20;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration idleTimeout = Duration.ofHours(8);
    private int maxFailedLogins = 10;
    private Duration failedLoginWindow = Duration.ofMinutes(1);
    private Duration blockDuration = Duration.ofMinutes(5);
    private List<SystemVariable> extraVariables = List.of();
    private int ioThreads = 2;
    private int authThreads = 2;

    private Builder(SqlFlavor dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      this.version = AnnouncedVersion.fallback(dialect);
    }

    public Builder bind(InetSocketAddress address) {
      this.bind = address;
      return this;
    }

    /**
     * The version to announce; {@link AnnouncedVersion#choose} says which (configured, or the
     * upstream's).
     */
    public Builder version(String v) {
      this.version = v;
      return this;
    }

    public Builder versionComment(String v) {
      this.versionComment = v;
      return this;
    }

    public Builder serverId(long id) {
      this.serverId = id;
      return this;
    }

    public Builder serverUuid(String uuid) {
      this.serverUuid = uuid;
      return this;
    }

    public Builder gtidDomainId(long id) {
      this.gtidDomainId = id;
      return this;
    }

    public Builder accounts(UserAccounts a) {
      this.accounts = a;
      return this;
    }

    public Builder tls(TlsFiles files) {
      this.tls = files;
      return this;
    }

    /**
     * Without {@link #tls}, offer TLS with a certificate generated at start (the default) or not at
     * all.
     */
    public Builder autoGenerateCertificate(boolean generate) {
      this.autoGenerateCertificate = generate;
      return this;
    }

    public Builder requireSecureTransport(boolean require) {
      this.requireSecureTransport = require;
      return this;
    }

    public Builder rsaPrivateKey(Path pem) {
      this.rsaPrivateKey = pem;
      return this;
    }

    public Builder maxConnections(int n) {
      this.maxConnections = n;
      return this;
    }

    public Builder maxPacketBytes(int n) {
      this.maxPacketBytes = n;
      return this;
    }

    public Builder connectTimeout(Duration d) {
      this.connectTimeout = d;
      return this;
    }

    public Builder idleTimeout(Duration d) {
      this.idleTimeout = d;
      return this;
    }

    public Builder loginThrottle(int maxFailures, Duration window, Duration block) {
      this.maxFailedLogins = maxFailures;
      this.failedLoginWindow = window;
      this.blockDuration = block;
      return this;
    }

    public Builder extraVariables(List<SystemVariable> variables) {
      this.extraVariables = variables;
      return this;
    }

    public Builder ioThreads(int n) {
      this.ioThreads = n;
      return this;
    }

    /**
     * Threads that check passwords (caching_sha2_password's full path, RSA), so that no event loop
     * does.
     */
    public Builder authThreads(int n) {
      this.authThreads = n;
      return this;
    }

    /**
     * New connections a second one host may open (bursts of ten seconds' worth); 0 (the default):
     * no limit.
     */
    public Builder maxConnectRatePerHost(int perSecond) {
      this.maxConnectRatePerHost = perSecond;
      return this;
    }

    /**
     * {@code SO_SNDBUF} of replica connections in bytes; 0 (the default) lets the operating system
     * size it.
     */
    public Builder sendBufferBytes(int n) {
      this.sendBufferBytes = n;
      return this;
    }

    public ReplicaServerConfig build() {
      ServerIdentity identity =
          new ServerIdentity(
              version,
              versionComment,
              serverId,
              serverUuid,
              gtidDomainId,
              maxPacketBytes,
              idleTimeout.toSeconds(),
              "binlog-relay",
              bind.getPort());
      return new ReplicaServerConfig(
          bind,
          dialect,
          identity,
          accounts,
          tls,
          autoGenerateCertificate,
          requireSecureTransport,
          rsaPrivateKey,
          maxConnections,
          maxPacketBytes,
          connectTimeout,
          idleTimeout,
          maxFailedLogins,
          failedLoginWindow,
          blockDuration,
          extraVariables,
          ioThreads,
          authThreads,
          maxConnectRatePerHost,
          sendBufferBytes);
    }
  }
}
