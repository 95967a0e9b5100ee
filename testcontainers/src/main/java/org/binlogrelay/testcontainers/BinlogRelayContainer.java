package org.binlogrelay.testcontainers;

import com.github.dockerjava.api.command.InspectContainerResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.Consumer;
import org.binlogrelay.testcontainers.ReplicaAccount.AuthPlugin;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.FrameConsumerResultCallback;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * A binlog-relay in a container: it follows a MySQL or MariaDB primary (another container on a
 * shared {@link org.testcontainers.containers.Network}, or any host and port), stores its binlogs
 * and serves them to replicas, which replicate from it as from the primary.
 *
 * <pre>{@code
 * Network network = Network.newNetwork();
 * MySQLContainer primary = new MySQLContainer(
 *         DockerImageName.parse("mysql:9.7"))
 *     .withNetwork(network)
 *     .withCommand("--gtid-mode=ON", "--enforce-gtid-consistency=ON");
 * BinlogRelayContainer relay = new BinlogRelayContainer(
 *         DockerImageName.parse("binlog-relay:latest"))    // docker/Dockerfile
 *     .withPrimary(primary)                              // same network; started first
 *     .withPrimaryCredentials("repl", "repl-pass")       // REPLICATION SLAVE, REPLICATION CLIENT
 *     .withReplicaAccount("replica", "replica-pass");    // what replicas log in with
 * relay.start();
 * // replicas on the network: CHANGE REPLICATION SOURCE TO SOURCE_HOST = relay.getNetworkAlias(),
 * //   SOURCE_PORT = BinlogRelayContainer.REPLICA_PORT, SOURCE_AUTO_POSITION = 1, SOURCE_SSL = 1
 * relay.waitUntilCaughtUp(primaryConnection);
 * }</pre>
 *
 * <h2>Image</h2>
 *
 * The constructor takes the image of {@code docker/Dockerfile} in the relay's repository ({@code
 * docker build -f docker/Dockerfile -t binlog-relay .}): user {@code binlog-relay} (uid 10001),
 * data volume {@code /var/lib/binlog-relay}, replica port {@value #REPLICA_PORT}, admin port
 * {@value #ADMIN_PORT}, configured by {@code BINLOG_RELAY_*} variables (docs/running.md). This
 * class configures it the same way.
 *
 * <h2>What it sets up</h2>
 *
 * <ul>
 *   <li>the primary as {@code BINLOG_RELAY_SOURCE}, its password in a file ({@code
 *       BINLOG_RELAY_PRIMARY_PASSWORD_FILE}), never on a command line;
 *   <li>an accounts file made from the {@link ReplicaAccount}s (hashes only: the plain passwords
 *       never enter the container);
 *   <li>the admin API on all interfaces with a random bearer token ({@link #getAdminToken()}),
 *       which the relay requires off loopback; {@code /health} and {@code /ready} need none, {@code
 *       /metrics} and {@code /api/v1/...} do;
 *   <li>server_id {@value #DEFAULT_SERVER_ID} unless {@link #withServerId(long)} says otherwise;
 *   <li>a wait until {@code GET /ready} answers 200 (store open, replica port listening), at start
 *       and after {@link #restartAfterKill()}.
 * </ul>
 *
 * TLS for replicas is on by default with a certificate the relay generates at start (MySQL 9.7
 * replicas need TLS or RSA for {@code caching_sha2_password}: use {@code SOURCE_SSL = 1}); see
 * {@link #withTlsCertificate(MountableFile, MountableFile)}.
 *
 * <h2>Crash tests</h2>
 *
 * {@link #kill()} sends SIGKILL to the relay (the container's PID 1) and {@link
 * #restartAfterKill()} starts the same container again: its data volume, and so the stored binlogs,
 * stay; the relay recovers its store and continues from where it ends. The replica-facing and admin
 * ports may be mapped to other host ports after a restart; the getters return the new ones.
 *
 * <h2>Thread-safety</h2>
 *
 * Configure ({@code with...}) and start from one thread, as any Testcontainers container. Once
 * started, the getters and the admin API readers ({@link #adminGet(String)}, {@link
 * #getExecutedGtids()}, {@link #getUpstreamLagSeconds()}, {@link #waitUntilCaughtUp(Connection)})
 * may be called from any thread; {@link #kill()} and {@link #restartAfterKill()} must not run
 * concurrently with each other or with {@code start()}/{@code stop()}.
 */
public class BinlogRelayContainer extends GenericContainer<BinlogRelayContainer> {

  /** The port replicas connect to, inside the container and on its networks. */
  public static final int REPLICA_PORT = 3307;

  /** The admin HTTP port: {@code /health}, {@code /ready}, {@code /metrics}, {@code /api/v1}. */
  public static final int ADMIN_PORT = 9307;

  /** The relay's server_id unless {@link #withServerId(long)} gives one. */
  public static final long DEFAULT_SERVER_ID = 9001;

  /** Where the relay's image keeps its store (a Docker volume). */
  public static final String DATA_DIR = "/var/lib/binlog-relay";

  private static final String CONFIG_DIR = "/etc/binlog-relay";
  private static final String PRIMARY_PASSWORD_FILE = CONFIG_DIR + "/primary-password";
  private static final String ACCOUNTS_FILE = CONFIG_DIR + "/accounts";
  private static final String ADMIN_TOKEN_FILE = CONFIG_DIR + "/admin-token";
  private static final String SSL_CERT_FILE = CONFIG_DIR + "/tls/cert.pem";
  private static final String SSL_KEY_FILE = CONFIG_DIR + "/tls/key.pem";
  private static final String PRIMARY_SSL_CA_FILE = CONFIG_DIR + "/tls/primary-ca.pem";

  private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration DEFAULT_CATCH_UP_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(100);

  private final String adminToken;
  private final List<ReplicaAccount> replicaAccounts = new ArrayList<>();
  private final List<String> accountsLines = new ArrayList<>();
  private final AdminHttp admin = new AdminHttp(this::getAdminUrl, this::getAdminToken);

  private GenericContainer<?> primaryContainer;
  private int primaryContainerPort;
  private String primaryHost;
  private int primaryPort;
  private String primaryUser;
  private String primaryPassword;
  private long serverId = DEFAULT_SERVER_ID;
  private AuthPlugin defaultAuthPlugin;

  /** The container's details after {@link #restartAfterKill()}: its ports are mapped anew. */
  private volatile InspectContainerResponse restartedInfo;

  /**
   * A relay container from {@code image}, the image built from the relay's {@code
   * docker/Dockerfile} (any tag or registry: the image's contract is what counts, not its name).
   */
  public BinlogRelayContainer(DockerImageName image) {
    super(Objects.requireNonNull(image, "image"));
    byte[] token = new byte[24];
    new SecureRandom().nextBytes(token);
    this.adminToken = HexFormat.of().formatHex(token);
    withExposedPorts(REPLICA_PORT, ADMIN_PORT);
    waitingFor(
        Wait.forHttp("/ready")
            .forPort(ADMIN_PORT)
            .forStatusCode(200)
            .withStartupTimeout(STARTUP_TIMEOUT));
  }

  /** Same as {@code new BinlogRelayContainer(DockerImageName.parse(image))}. */
  public BinlogRelayContainer(String image) {
    this(DockerImageName.parse(image));
  }

  // --- configuration -----------------------------------------------------------------------------

  /**
   * Follows {@code primary}, a MySQL or MariaDB container (Testcontainers' {@code MySQLContainer},
   * {@code MariaDBContainer} or any container listening on 3306), over their shared network: the
   * relay joins the primary's network unless it has one, reaches it under its first network alias,
   * and starts after it. The primary needs binary logging (on by default in MySQL 8+; MariaDB:
   * {@code --log-bin}), GTIDs for GTID replication ({@code --gtid-mode=ON
   * --enforce-gtid-consistency=ON} on MySQL) and a replication account ({@link
   * #withPrimaryCredentials}). Replica accounts default to {@code mysql_native_password} when the
   * primary's image name contains "mariadb", else to {@code caching_sha2_password}.
   */
  public BinlogRelayContainer withPrimary(GenericContainer<?> primary) {
    return withPrimary(primary, 3306);
  }

  /** As {@link #withPrimary(GenericContainer)}, with the primary's port inside its container. */
  public BinlogRelayContainer withPrimary(GenericContainer<?> primary, int port) {
    this.primaryContainer = Objects.requireNonNull(primary, "primary");
    this.primaryContainerPort = checkedPort(port);
    this.primaryHost = null;
    dependsOn(primary);
    return self();
  }

  /**
   * Follows the primary at {@code host:port} as the relay's container sees it: a name on the
   * container's network, or {@code host.testcontainers.internal} for a server on the test's host
   * (after {@code org.testcontainers.Testcontainers.exposeHostPorts(port)}).
   */
  public BinlogRelayContainer withPrimary(String host, int port) {
    Objects.requireNonNull(host, "host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("the primary's host is empty");
    }
    this.primaryHost = host;
    this.primaryPort = checkedPort(port);
    this.primaryContainer = null;
    return self();
  }

  /**
   * The account the relay logs in to the primary with; it needs {@code REPLICATION SLAVE,
   * REPLICATION CLIENT ON *.*} there. The password reaches the relay in a file, not its command
   * line.
   */
  public BinlogRelayContainer withPrimaryCredentials(String user, String password) {
    this.primaryUser = Objects.requireNonNull(user, "user");
    this.primaryPassword = Objects.requireNonNull(password, "password");
    if (user.isEmpty()) {
      throw new IllegalArgumentException("the primary's replication user is empty");
    }
    return self();
  }

  /**
   * The relay's server_id (default {@value #DEFAULT_SERVER_ID}): unique among the primary, its
   * replicas and the relay's replicas.
   */
  public BinlogRelayContainer withServerId(long id) {
    if (id < 1 || id > 4_294_967_295L) {
      throw new IllegalArgumentException("server_id " + id + " is outside 1..4294967295");
    }
    this.serverId = id;
    return self();
  }

  /**
   * An account replicas log in with: {@code user@%} with {@code
   * REPLICATION_SLAVE,REPLICATION_CLIENT}, hashed for the primary's flavour.
   */
  public BinlogRelayContainer withReplicaAccount(String user, String password) {
    return withReplicaAccount(ReplicaAccount.of(user, password));
  }

  /** An account replicas (or other clients of the relay) log in with. */
  public BinlogRelayContainer withReplicaAccount(ReplicaAccount account) {
    replicaAccounts.add(Objects.requireNonNull(account, "account"));
    return self();
  }

  /**
   * A line of the relay's accounts file as it is ({@code user@host privileges hash}, a hash copied
   * from {@code mysql.user} or made by the relay's {@code PasswordHashes}); see docs/running.md,
   * "Accounts".
   */
  public BinlogRelayContainer withAccountsLine(String line) {
    Objects.requireNonNull(line, "line");
    if (line.contains("\n") || line.contains("\r")) {
      throw new IllegalArgumentException("an accounts line is one line");
    }
    accountsLines.add(line);
    return self();
  }

  /**
   * How {@link #withReplicaAccount(String, String)} hashes passwords when the account does not say:
   * overrides the choice made from the primary's image name.
   */
  public BinlogRelayContainer withDefaultAuthPlugin(AuthPlugin plugin) {
    this.defaultAuthPlugin = Objects.requireNonNull(plugin, "plugin");
    return self();
  }

  /**
   * TLS for replicas with this certificate chain and unencrypted PKCS#8 key (PEM) instead of the
   * certificate the relay generates at start ({@code --ssl-cert}, {@code --ssl-key}). Give the
   * files a mode the container's user (uid 10001) can read, e.g. {@code
   * MountableFile.forHostPath(path, 0644)}.
   */
  public BinlogRelayContainer withTlsCertificate(MountableFile certificate, MountableFile key) {
    withCopyFileToContainer(Objects.requireNonNull(certificate, "certificate"), SSL_CERT_FILE);
    withCopyFileToContainer(Objects.requireNonNull(key, "key"), SSL_KEY_FILE);
    withEnv("BINLOG_RELAY_SSL_CERT", SSL_CERT_FILE);
    withEnv("BINLOG_RELAY_SSL_KEY", SSL_KEY_FILE);
    return self();
  }

  /**
   * Whether the relay generates a self-signed certificate when none is given (default {@code
   * true}); {@code false} without {@link #withTlsCertificate} turns TLS for replicas off (MariaDB
   * 11.4+ replicas then need {@code MASTER_SSL=0}).
   */
  public BinlogRelayContainer withAutoGeneratedCertificate(boolean generate) {
    withEnv("BINLOG_RELAY_AUTO_GENERATE_CERTS", Boolean.toString(generate));
    return self();
  }

  /** Refuse logins without TLS with error 3159, as MySQL's {@code require_secure_transport}. */
  public BinlogRelayContainer withRequireSecureTransport(boolean require) {
    withEnv("BINLOG_RELAY_REQUIRE_SECURE_TRANSPORT", Boolean.toString(require));
    return self();
  }

  /**
   * TLS towards the primary: {@code disabled} (default), {@code preferred}, {@code required},
   * {@code verify_ca}, {@code verify_identity}, as the {@code mysql} client's {@code --ssl-mode}.
   */
  public BinlogRelayContainer withPrimaryTls(String sslMode) {
    withEnv("BINLOG_RELAY_PRIMARY_SSL_MODE", Objects.requireNonNull(sslMode, "sslMode"));
    return self();
  }

  /**
   * TLS towards the primary, its certificate checked against the PEM CA certificate(s) {@code ca}
   * ({@code verify_ca} or {@code verify_identity}).
   */
  public BinlogRelayContainer withPrimaryTls(String sslMode, MountableFile ca) {
    withPrimaryTls(sslMode);
    withCopyFileToContainer(Objects.requireNonNull(ca, "ca"), PRIMARY_SSL_CA_FILE);
    withEnv("BINLOG_RELAY_PRIMARY_SSL_CA", PRIMARY_SSL_CA_FILE);
    return self();
  }

  /**
   * Any other relay option by its long name ({@code "sync-binlog"}, {@code "--heartbeat-period"}),
   * passed as its {@code BINLOG_RELAY_*} variable (docs/running.md, "Options").
   */
  public BinlogRelayContainer withRelayOption(String option, String value) {
    Objects.requireNonNull(value, "value");
    String name = Objects.requireNonNull(option, "option").replaceFirst("^--", "");
    if (!name.matches("[a-z][a-z0-9_-]*")) {
      throw new IllegalArgumentException(
          "'" + option + "' is not a relay option name (e.g. sync-binlog)");
    }
    withEnv("BINLOG_RELAY_" + name.replace('-', '_').toUpperCase(Locale.ROOT), value);
    return self();
  }

  @Override
  protected void configure() {
    if (primaryContainer != null) {
      if (primaryContainer.getNetwork() == null) {
        throw new IllegalStateException(
            "the primary container is on no network: give it and the relay a shared one"
                + " (primary.withNetwork(network)), or use withPrimary(host, port)");
      }
      if (getNetwork() == null) {
        withNetwork(primaryContainer.getNetwork());
      }
      primaryHost = primaryContainer.getNetworkAliases().get(0);
      primaryPort = primaryContainerPort;
    }
    if (primaryHost == null) {
      throw new IllegalStateException(
          "no primary: call withPrimary(container) or withPrimary(host, port)");
    }
    if (primaryUser == null) {
      throw new IllegalStateException(
          "no replication account for the primary: call withPrimaryCredentials(user, password)");
    }
    withEnv("BINLOG_RELAY_SOURCE", SourceArgument.of(primaryUser, primaryHost, primaryPort));
    withCopyToContainer(file(primaryPassword + "\n"), PRIMARY_PASSWORD_FILE);
    withEnv("BINLOG_RELAY_PRIMARY_PASSWORD_FILE", PRIMARY_PASSWORD_FILE);
    withEnv("BINLOG_RELAY_SERVER_ID", Long.toString(serverId));
    withCopyToContainer(file(adminToken + "\n"), ADMIN_TOKEN_FILE);
    withEnv("BINLOG_RELAY_ADMIN_TOKEN_FILE", ADMIN_TOKEN_FILE);
    withEnv("BINLOG_RELAY_ADMIN_BIND_ADDRESS", "0.0.0.0");
    withEnv("BINLOG_RELAY_BIND_ADDRESS", "0.0.0.0");
    if (!replicaAccounts.isEmpty() || !accountsLines.isEmpty()) {
      StringBuilder accounts =
          new StringBuilder("# made by BinlogRelayContainer: user@host privileges hash\n");
      AuthPlugin plugin = chosenAuthPlugin();
      for (ReplicaAccount account : replicaAccounts) {
        accounts.append(account.accountsLine(plugin)).append('\n');
      }
      for (String line : accountsLines) {
        accounts.append(line).append('\n');
      }
      withCopyToContainer(file(accounts.toString()), ACCOUNTS_FILE);
      withEnv("BINLOG_RELAY_ACCOUNTS_FILE", ACCOUNTS_FILE);
    }
  }

  private AuthPlugin chosenAuthPlugin() {
    if (defaultAuthPlugin != null) {
      return defaultAuthPlugin;
    }
    boolean mariaDb =
        primaryContainer != null
            && primaryContainer.getDockerImageName().toLowerCase(Locale.ROOT).contains("mariadb");
    return mariaDb ? AuthPlugin.MYSQL_NATIVE_PASSWORD : AuthPlugin.CACHING_SHA2_PASSWORD;
  }

  private static Transferable file(String content) {
    return Transferable.of(content.getBytes(StandardCharsets.UTF_8), 0644);
  }

  private static int checkedPort(int port) {
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is outside 1..65535");
    }
    return port;
  }

  // --- where it is -------------------------------------------------------------------------------

  /** The host replicas outside Docker's networks (the test's JVM) connect to. */
  public String getReplicaHost() {
    return getHost();
  }

  /** The host port mapped to {@link #REPLICA_PORT}, for clients outside Docker's networks. */
  public int getReplicaPort() {
    return getMappedPort(REPLICA_PORT);
  }

  /**
   * The relay's name on its network: what replica containers on the same network give as {@code
   * SOURCE_HOST}/{@code MASTER_HOST}, with port {@link #REPLICA_PORT}.
   */
  public String getNetworkAlias() {
    return getNetworkAliases().get(0);
  }

  /** The admin API's base URL from the test's JVM, e.g. {@code http://localhost:49153}. */
  public String getAdminUrl() {
    return "http://" + getHost() + ":" + getMappedPort(ADMIN_PORT);
  }

  /**
   * The Prometheus endpoint from the test's JVM; it needs {@code Authorization: Bearer} {@link
   * #getAdminToken()}.
   */
  public String getMetricsUrl() {
    return getAdminUrl() + "/metrics";
  }

  /** The admin API's bearer token (random per container). */
  public String getAdminToken() {
    return adminToken;
  }

  /** The relay's server_id. */
  public long getServerId() {
    return serverId;
  }

  @Override
  public InspectContainerResponse getContainerInfo() {
    InspectContainerResponse restarted = restartedInfo;
    return restarted != null ? restarted : super.getContainerInfo();
  }

  @Override
  protected void containerIsStarting(InspectContainerResponse containerInfo) {
    restartedInfo = null;
    super.containerIsStarting(containerInfo);
  }

  @Override
  protected void containerIsStopped(InspectContainerResponse containerInfo) {
    restartedInfo = null;
    super.containerIsStopped(containerInfo);
  }

  // --- the admin API -----------------------------------------------------------------------------

  /**
   * {@code GET path} on the admin API with the token, e.g. {@code adminGet("/api/v1/status")}; the
   * JSON body (docs/admin-api.md). A status other than 200 throws {@link IllegalStateException}
   * with the relay's error.
   */
  public String adminGet(String path) {
    return admin.get(path, getContainerName());
  }

  /**
   * {@code POST path} on the admin API with a JSON body ({@code null} for none), e.g. {@code
   * adminPost("/api/v1/upstream/stop", null)}; the answer's body. Not 200: {@link
   * IllegalStateException}.
   */
  public String adminPost(String path, String jsonBody) {
    return admin.post(path, jsonBody, getContainerName());
  }

  /** The Prometheus text of {@code /metrics}. */
  public String getMetrics() {
    return adminGet("/metrics");
  }

  /**
   * The GTID set the relay has stored, in its flavour's text form ({@code GET /api/v1/gtid}, {@code
   * executed}).
   */
  public String getExecutedGtids() {
    Object executed = JsonText.member(JsonText.parse(adminGet("/api/v1/gtid")), "executed");
    return executed == null ? "" : executed.toString();
  }

  /**
   * How far the relay is behind its primary, in seconds ({@code GET /api/v1/lag}, {@code
   * upstream.secondsBehind}); empty while it is not streaming.
   */
  public OptionalDouble getUpstreamLagSeconds() {
    Object upstream = JsonText.member(JsonText.parse(adminGet("/api/v1/lag")), "upstream");
    Object seconds = upstream == null ? null : JsonText.member(upstream, "secondsBehind");
    return seconds instanceof Double d ? OptionalDouble.of(d) : OptionalDouble.empty();
  }

  /**
   * The upstream connection's state ({@code CONNECTING}, {@code STREAMING}, {@code BACKING_OFF},
   * {@code WAITING_FOR_STORE}, {@code STOPPED}, {@code FAILED}).
   */
  public String getUpstreamState() {
    return String.valueOf(JsonText.member(upstream(), "state"));
  }

  private Object upstream() {
    return JsonText.parse(adminGet("/api/v1/upstream"));
  }

  /**
   * Waits up to 60 s until the relay has stored every transaction the primary has executed now:
   * reads the primary's {@code @@GLOBAL.gtid_executed} (MySQL) or {@code @@GLOBAL.gtid_binlog_pos}
   * (MariaDB) over {@code primary}, then polls the relay's {@code GET /api/v1/gtid}.
   *
   * @param primary a connection to the primary, e.g. {@code DriverManager.getConnection(
   *     mysql.getJdbcUrl(), "root", password)}; used once, not closed
   * @throws IllegalStateException after the timeout or when the upstream FAILED, saying what the
   *     relay has, what it waits for and the upstream's last error
   */
  public void waitUntilCaughtUp(Connection primary) throws SQLException {
    waitUntilCaughtUp(primary, DEFAULT_CATCH_UP_TIMEOUT);
  }

  /** As {@link #waitUntilCaughtUp(Connection)} with a timeout. */
  public void waitUntilCaughtUp(Connection primary, Duration timeout) throws SQLException {
    waitUntilCaughtUp(executedGtids(primary), timeout);
  }

  /**
   * Waits until the relay's stored GTID set holds {@code gtidSet} (MySQL {@code uuid:1-5,...} or
   * MariaDB {@code domain-server-seq,...}), polling {@code GET /api/v1/gtid} every 100 ms.
   *
   * @throws IllegalStateException after {@code timeout}, or at once when the upstream FAILED (it
   *     does not cure itself), with the upstream's last error
   */
  public void waitUntilCaughtUp(String gtidSet, Duration timeout) {
    Objects.requireNonNull(gtidSet, "gtidSet");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String executed = getExecutedGtids();
      if (GtidSetText.contains(executed, gtidSet)) {
        return;
      }
      Object upstream = upstream();
      Object state = JsonText.member(upstream, "state");
      if ("FAILED".equals(state) || System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "relay "
                + getContainerName()
                + " has not caught up with its primary"
                + ("FAILED".equals(state) ? " (its upstream FAILED)" : " within " + timeout)
                + ": it stored '"
                + executed
                + "', waiting for '"
                + gtidSet
                + "'; upstream "
                + state
                + ", last error: "
                + JsonText.member(upstream, "lastError"));
      }
      pause(POLL_INTERVAL);
    }
  }

  /** The primary's executed GTIDs in its flavour's form, read over {@code primary}. */
  static String executedGtids(Connection primary) throws SQLException {
    try (Statement statement = primary.createStatement()) {
      String version;
      try (ResultSet rs = statement.executeQuery("SELECT @@version")) {
        rs.next();
        version = rs.getString(1);
      }
      String query =
          version.contains("MariaDB")
              ? "SELECT @@GLOBAL.gtid_binlog_pos"
              : "SELECT @@GLOBAL.gtid_executed";
      try (ResultSet rs = statement.executeQuery(query)) {
        rs.next();
        String set = rs.getString(1);
        return set == null ? "" : set.replace("\n", "");
      }
    }
  }

  // --- crash tests -------------------------------------------------------------------------------

  /**
   * Kills the relay with SIGKILL (no clean stop: nothing is flushed, as after a crash or an OOM
   * kill) and waits until its container has exited. The container and its data volume stay, for
   * {@link #restartAfterKill()}.
   */
  public void kill() {
    String id = requireContainerId();
    getDockerClient().killContainerCmd(id).withSignal("KILL").exec();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (Boolean.TRUE.equals(
        getDockerClient().inspectContainerCmd(id).exec().getState().getRunning())) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "relay container " + getContainerName() + " still runs 30 s after SIGKILL");
      }
      pause(POLL_INTERVAL);
    }
  }

  /**
   * Starts the killed container again, with the same data volume and configuration, and waits until
   * {@code /ready} answers 200: the relay has recovered its store (cutting a partly written
   * transaction) and listens for replicas; it then continues from its primary where the store ends.
   * Its ports may be mapped to new host ports.
   */
  public void restartAfterKill() {
    String id = requireContainerId();
    int since = (int) Instant.now().getEpochSecond();
    getDockerClient().startContainerCmd(id).exec();
    restartedInfo = getDockerClient().inspectContainerCmd(id).exec();
    followLogsSince(id, since);
    waitUntilContainerStarted();
  }

  /**
   * Hands the restarted relay's output to the {@code withLogConsumer} consumers (the stream they
   * followed ended with the kill); lines of the second of the restart may appear twice.
   */
  private void followLogsSince(String id, int epochSecond) {
    if (getLogConsumers().isEmpty()) {
      return;
    }
    FrameConsumerResultCallback callback = new FrameConsumerResultCallback();
    for (Consumer<OutputFrame> consumer : getLogConsumers()) {
      callback.addConsumer(OutputFrame.OutputType.STDOUT, consumer);
      callback.addConsumer(OutputFrame.OutputType.STDERR, consumer);
    }
    getDockerClient()
        .logContainerCmd(id)
        .withStdOut(true)
        .withStdErr(true)
        .withFollowStream(true)
        .withSince(epochSecond)
        .exec(callback);
  }

  /** {@link #kill()}, then {@link #restartAfterKill()}. */
  public void killAndRestart() {
    kill();
    restartAfterKill();
  }

  private String requireContainerId() {
    String id = getContainerId();
    if (id == null) {
      throw new IllegalStateException("the relay container has not been started");
    }
    return id;
  }

  private static void pause(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the relay", e);
    }
  }
}
