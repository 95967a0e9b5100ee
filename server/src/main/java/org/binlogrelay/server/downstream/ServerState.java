package org.binlogrelay.server.downstream;

import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.protocol.auth.AuthPlugin;
import org.binlogrelay.protocol.handshake.HandshakeLimits;
import org.binlogrelay.server.downstream.account.LoginThrottle;
import org.binlogrelay.server.downstream.sql.QueryResponder;
import org.binlogrelay.storage.Time;

/**
 * What all connections of one {@link ReplicaServer} share: the configuration, the auth plugins
 * (with caching_sha2_password's fast-auth cache and RSA keys) and the executor that runs their
 * exchanges, the login throttle, the statement responder, the registry of replicas, the TLS
 * context, the dump handler, the connection counters ({@link ConnectionStats}) and the logged-in
 * connections ({@link ConnectionRegistry}).
 *
 * <p>Thread-safe: every component is immutable or thread-safe.
 */
final class ServerState {
  /** Hosts whose connection rate is tracked at most (least recently seen forgotten first). */
  static final int CONNECT_RATE_HOSTS = 10_000;

  final ReplicaServerConfig config;
  final Map<String, AuthPlugin> plugins;
  final LoginThrottle throttle;

  /** The per-host connection rate limit, or null when there is none. */
  final HostConnectRate connectRate;

  final QueryResponder responder;
  final ReplicaRegistry replicas;

  /** The TLS offered, or null for none. */
  final ServerTls tls;

  final DumpHandler dumpHandler;

  /**
   * Runs the steps of authentication exchanges (SHA-256-crypt, RSA decryption) off the event loops.
   */
  final Executor authExecutor;

  /** The clocks of the connection rate and the refusal logs. */
  final Time time;

  final SecureRandom random;
  final HandshakeLimits handshakeLimits = HandshakeLimits.DEFAULT;
  final AtomicLong connectionIds = new AtomicLong();
  final AtomicInteger openConnections = new AtomicInteger();

  /**
   * Connections refused before the greeting, by reason: max connections, the host's rate, a blocked
   * host.
   */
  final AtomicLong refusedOverLimit = new AtomicLong();

  final AtomicLong refusedOverRate = new AtomicLong();
  final AtomicLong refusedBlocked = new AtomicLong();

  /** Logins completed over TLS. */
  final AtomicLong tlsLogins = new AtomicLong();

  /** Every open connection, so that closing the server closes them. */
  final ChannelGroup channels =
      new DefaultChannelGroup("replica-connections", GlobalEventExecutor.INSTANCE);

  /** What SHOW GLOBAL STATUS counts. */
  final ConnectionStats stats;

  /** The logged-in connections, for SHOW PROCESSLIST and KILL. */
  final ConnectionRegistry connections;

  ServerState(
      ReplicaServerConfig config,
      Map<String, AuthPlugin> plugins,
      LoginThrottle throttle,
      QueryResponder responder,
      ReplicaRegistry replicas,
      ServerTls tls,
      DumpHandler dumpHandler,
      Executor authExecutor,
      Time time,
      SecureRandom random) {
    this(
        config,
        plugins,
        throttle,
        responder,
        replicas,
        tls,
        dumpHandler,
        authExecutor,
        time,
        random,
        new ConnectionStats(time, tls != null),
        new ConnectionRegistry(time));
  }

  ServerState(
      ReplicaServerConfig config,
      Map<String, AuthPlugin> plugins,
      LoginThrottle throttle,
      QueryResponder responder,
      ReplicaRegistry replicas,
      ServerTls tls,
      DumpHandler dumpHandler,
      Executor authExecutor,
      Time time,
      SecureRandom random,
      ConnectionStats stats,
      ConnectionRegistry connections) {
    this.stats = stats;
    this.connections = connections;
    this.config = config;
    this.plugins = Map.copyOf(plugins);
    this.throttle = throttle;
    this.connectRate =
        config.maxConnectRatePerHost() > 0
            ? new HostConnectRate(config.maxConnectRatePerHost(), time, CONNECT_RATE_HOSTS)
            : null;
    this.responder = responder;
    this.replicas = replicas;
    this.tls = tls;
    this.dumpHandler = dumpHandler;
    this.authExecutor = authExecutor;
    this.time = time;
    this.random = random;
  }

  /**
   * The most bytes a handshake packet may have: the response's fields at their limits, with room to
   * spare.
   */
  int maxHandshakePacket() {
    HandshakeLimits l = handshakeLimits;
    return 64
        + l.maxUserNameBytes()
        + l.maxAuthResponseBytes()
        + l.maxDatabaseBytes()
        + l.maxPluginNameBytes()
        + l.maxConnectAttributesBytes()
        + 16;
  }
}
