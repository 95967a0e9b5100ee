package org.binlogrelay.server.upstream;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import org.binlogrelay.protocol.replication.RegisterReplicaCommand;

/**
 * How the relay connects to its primary. Immutable; build with {@link #builder(String, int, String,
 * String)}. {@link #toString()} hides the password.
 *
 * @param host the primary's host name or address
 * @param port the primary's port
 * @param user a user with {@code REPLICATION SLAVE} and {@code REPLICATION CLIENT}
 * @param password its password
 * @param serverId the relay's {@code server_id}: unique among the primary's replicas and different
 *     from the primary's own (checked at every connection)
 * @param replicaUuid the relay's UUID, sent as {@code @replica_uuid} (MySQL): the primary lists it
 *     in {@code SHOW REPLICAS} and, when the relay reconnects, ends the dump thread of its previous
 *     connection
 * @param reportHost the host COM_REGISTER_SLAVE reports (shown by {@code SHOW REPLICAS}); may be
 *     empty
 * @param reportPort the port it reports; 0 if none
 * @param heartbeatPeriod how often the primary sends a heartbeat while it has nothing else to send
 *     ({@code @master_heartbeat_period}); the connection is declared dead after {@link
 *     #deadAfterHeartbeats} periods without any byte
 * @param deadAfterHeartbeats how many silent heartbeat periods make a connection dead
 * @param connectTimeout bound on connecting, the handshake and each statement before the dump
 *     starts
 * @param start where an empty store starts (a store that holds anything continues where it ends)
 * @param backoff waits between reconnection attempts
 * @param semiSync acknowledge transactions to a primary that has semi-synchronous replication, each
 *     once the store has made it durable (a primary without the source side is followed
 *     asynchronously)
 * @param tls TLS to the primary (default {@link TlsConfig#DISABLED})
 */
public record UpstreamConfig(
    String host,
    int port,
    String user,
    String password,
    long serverId,
    UUID replicaUuid,
    String reportHost,
    int reportPort,
    Duration heartbeatPeriod,
    int deadAfterHeartbeats,
    Duration connectTimeout,
    StartPosition start,
    Backoff backoff,
    boolean semiSync,
    TlsConfig tls) {

  /** MySQL's upper bound for a heartbeat period (and MariaDB's), in seconds. */
  public static final long MAX_HEARTBEAT_SECONDS = 4_294_967L;

  public UpstreamConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    Objects.requireNonNull(replicaUuid, "replicaUuid");
    Objects.requireNonNull(reportHost, "reportHost");
    Objects.requireNonNull(heartbeatPeriod, "heartbeatPeriod");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(backoff, "backoff");
    Objects.requireNonNull(tls, "tls");
    if (host.isEmpty()) {
      throw new IllegalArgumentException("the primary's host is empty");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("the primary's port " + port + " is outside 1..65535");
    }
    if (serverId < 1 || serverId > 0xFFFFFFFFL) {
      throw new IllegalArgumentException(
          "server_id "
              + serverId
              + " is outside 1..4294967295 (0 would make the"
              + " primary end the dump at the end of its binlog)");
    }
    if (reportHost.getBytes(StandardCharsets.UTF_8).length
        > RegisterReplicaCommand.MAX_REPORT_FIELD) {
      throw new IllegalArgumentException(
          "report host is longer than " + RegisterReplicaCommand.MAX_REPORT_FIELD + " bytes");
    }
    if (reportPort < 0 || reportPort > 65535) {
      throw new IllegalArgumentException("report port " + reportPort + " is outside 0..65535");
    }
    if (heartbeatPeriod.toMillis() < 1 || heartbeatPeriod.toSeconds() > MAX_HEARTBEAT_SECONDS) {
      throw new IllegalArgumentException(
          "heartbeat period "
              + heartbeatPeriod
              + " is outside 1 ms .. "
              + MAX_HEARTBEAT_SECONDS
              + " s");
    }
    if (deadAfterHeartbeats < 2) {
      throw new IllegalArgumentException(
          "deadAfterHeartbeats must be at least 2, got " + deadAfterHeartbeats);
    }
    if (connectTimeout.toMillis() < 1 || connectTimeout.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "connect timeout " + connectTimeout + " is outside 1 ms .. 24 days");
    }
    if ((long) deadAfterHeartbeats * heartbeatPeriod.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("heartbeat period x deadAfterHeartbeats is over 24 days");
    }
  }

  /** The same configuration with {@code value} as where an empty store starts. */
  public UpstreamConfig withStart(StartPosition value) {
    return new UpstreamConfig(
        host,
        port,
        user,
        password,
        serverId,
        replicaUuid,
        reportHost,
        reportPort,
        heartbeatPeriod,
        deadAfterHeartbeats,
        connectTimeout,
        value,
        backoff,
        semiSync,
        tls);
  }

  /** Where and as whom the relay logs in to the primary. */
  public ServerEndpoint endpoint() {
    return new ServerEndpoint("primary", host, port, user, password, connectTimeout, tls);
  }

  /** How long the stream may stay silent before the connection is declared dead. */
  public Duration deadAfter() {
    return heartbeatPeriod.multipliedBy(deadAfterHeartbeats);
  }

  /** A UUID derived from the server_id, the same at every start of a relay with that server_id. */
  public static UUID defaultReplicaUuid(long serverId) {
    return UUID.nameUUIDFromBytes(
        ("binlog-relay server_id " + serverId).getBytes(StandardCharsets.UTF_8));
  }

  public static Builder builder(String host, int port, String user, String password) {
    return new Builder(host, port, user, password);
  }

  @Override
  public String toString() {
    return "UpstreamConfig["
        + user
        + "@"
        + host
        + ":"
        + port
        + ", server_id "
        + serverId
        + ", uuid "
        + replicaUuid
        + ", report "
        + reportHost
        + ":"
        + reportPort
        + ", heartbeat "
        + heartbeatPeriod
        + " (dead after "
        + deadAfterHeartbeats
        + "), connect timeout "
        + connectTimeout
        + ", start "
        + start
        + ", "
        + backoff
        + (semiSync ? ", semi-sync" : "")
        + (tls.mode() != TlsMode.DISABLED ? ", " + tls : "")
        + "]";
  }

  /**
   * Builder with the defaults: heartbeat 1 s, dead after 3, connect timeout 10 s, start at the
   * earliest file.
   */
  public static final class Builder {
    private final String host;
    private final int port;
    private String user;
    private String password;
    private long serverId = 0;
    private UUID replicaUuid;
    private String reportHost = "";
    private int reportPort;
    private Duration heartbeatPeriod = Duration.ofSeconds(1);
    private int deadAfterHeartbeats = 3;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private StartPosition start = StartPosition.earliest();
    private Backoff backoff = Backoff.DEFAULT;
    private boolean semiSync;
    private TlsConfig tls = TlsConfig.DISABLED;

    private Builder(String host, int port, String user, String password) {
      this.host = host;
      this.port = port;
      this.user = user;
      this.password = password;
    }

    /** Another user and password than the ones given to {@link UpstreamConfig#builder}. */
    public Builder credentials(String newUser, String newPassword) {
      this.user = newUser;
      this.password = newPassword;
      return this;
    }

    public Builder serverId(long value) {
      this.serverId = value;
      return this;
    }

    public Builder replicaUuid(UUID value) {
      this.replicaUuid = value;
      return this;
    }

    public Builder report(String host, int port) {
      this.reportHost = host;
      this.reportPort = port;
      return this;
    }

    public Builder heartbeatPeriod(Duration value) {
      this.heartbeatPeriod = value;
      return this;
    }

    public Builder deadAfterHeartbeats(int value) {
      this.deadAfterHeartbeats = value;
      return this;
    }

    public Builder connectTimeout(Duration value) {
      this.connectTimeout = value;
      return this;
    }

    public Builder start(StartPosition value) {
      this.start = value;
      return this;
    }

    public Builder backoff(Backoff value) {
      this.backoff = value;
      return this;
    }

    /** Acknowledge semi-sync transactions once durable (default: off, asynchronous). */
    public Builder semiSync(boolean value) {
      this.semiSync = value;
      return this;
    }

    /** TLS to the primary (default: disabled). */
    public Builder tls(TlsConfig value) {
      this.tls = value;
      return this;
    }

    /**
     * @throws IllegalArgumentException if the server_id was not set or a value is out of range
     */
    public UpstreamConfig build() {
      UUID uuid = replicaUuid != null ? replicaUuid : defaultReplicaUuid(serverId);
      return new UpstreamConfig(
          host,
          port,
          user,
          password,
          serverId,
          uuid,
          reportHost,
          reportPort,
          heartbeatPeriod,
          deadAfterHeartbeats,
          connectTimeout,
          start,
          backoff,
          semiSync,
          tls);
    }
  }
}
