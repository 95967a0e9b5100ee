package org.binlogrelay.server.downstream;

import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.protocol.auth.AuthPlugin;
import org.binlogrelay.protocol.handshake.HandshakeLimits;
import org.binlogrelay.server.downstream.account.LoginThrottle;
import org.binlogrelay.server.downstream.sql.QueryResponder;

/**
 * What all connections of one {@link ReplicaServer} share: the configuration, the auth plugins (with
 * caching_sha2_password's fast-auth cache and RSA keys) and the executor that runs their exchanges, the login
 * throttle, the statement responder, the registry of replicas, the TLS context, the dump handler, and the connection
 * counters.
 *
 * <p>Thread-safe: every component is immutable or thread-safe.
 */
final class ServerState {
  final ReplicaServerConfig config;
  final Map<String, AuthPlugin> plugins;
  final LoginThrottle throttle;
  final QueryResponder responder;
  final ReplicaRegistry replicas;
  final SslContext ssl;
  final DumpHandler dumpHandler;
  /** Runs the steps of authentication exchanges (SHA-256-crypt, RSA decryption) off the event loops. */
  final Executor authExecutor;
  final Clock clock;
  final SecureRandom random;
  final HandshakeLimits handshakeLimits = HandshakeLimits.DEFAULT;
  final AtomicLong connectionIds = new AtomicLong();
  final AtomicInteger openConnections = new AtomicInteger();
  /** Every open connection, so that closing the server closes them. */
  final ChannelGroup channels = new DefaultChannelGroup("replica-connections", GlobalEventExecutor.INSTANCE);

  ServerState(ReplicaServerConfig config, Map<String, AuthPlugin> plugins, LoginThrottle throttle,
      QueryResponder responder, ReplicaRegistry replicas, SslContext ssl, DumpHandler dumpHandler,
      Executor authExecutor, Clock clock, SecureRandom random) {
    this.config = config;
    this.plugins = Map.copyOf(plugins);
    this.throttle = throttle;
    this.responder = responder;
    this.replicas = replicas;
    this.ssl = ssl;
    this.dumpHandler = dumpHandler;
    this.authExecutor = authExecutor;
    this.clock = clock;
    this.random = random;
  }

  /** The most bytes a handshake packet may have: the response's fields at their limits, with room to spare. */
  int maxHandshakePacket() {
    HandshakeLimits l = handshakeLimits;
    return 64 + l.maxUserNameBytes() + l.maxAuthResponseBytes() + l.maxDatabaseBytes() + l.maxPluginNameBytes()
        + l.maxConnectAttributesBytes() + 16;
  }
}
