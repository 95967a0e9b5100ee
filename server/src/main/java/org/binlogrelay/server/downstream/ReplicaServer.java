package org.binlogrelay.server.downstream;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.protocol.auth.AuthPlugin;
import org.binlogrelay.protocol.auth.CachingSha2PasswordPlugin;
import org.binlogrelay.protocol.auth.NativePasswordPlugin;
import org.binlogrelay.protocol.auth.RsaKeyPair;
import org.binlogrelay.protocol.auth.Sha2FastAuthCache;
import org.binlogrelay.protocol.query.SqlParser;
import org.binlogrelay.server.downstream.account.LoginThrottle;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.downstream.sql.QueryResponder;
import org.binlogrelay.server.downstream.sql.ReplicationSource;
import org.binlogrelay.server.downstream.sql.SchemaStatements;
import org.binlogrelay.server.downstream.sql.ServerVariables;
import org.binlogrelay.server.downstream.sql.SystemVariable;
import org.binlogrelay.server.downstream.sql.VariableType;
import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The downstream side of the relay: a server that MySQL and MariaDB replicas (and mysqlbinlog,
 * binlog client libraries, connectors) connect to as if it were their primary. It speaks the MySQL
 * protocol with TLS and both password plugins, answers what replicas ask before dumping, records
 * registrations, and hands each dump request to the {@link DumpHandler}. TLS uses the configured
 * certificate or, without one, a certificate generated at start ({@link GeneratedCertificate});
 * over TLS, a mysql_native_password login ends with MariaDB 11.4+'s proof of that certificate
 * ({@link org.binlogrelay.protocol.auth.CertificateProof}), so that MariaDB replicas and clients
 * that verify the server trust it without a CA.
 *
 * <pre>{@code
 * ReplicaServer server = ReplicaServer.start(config, new RefusingDumpHandler(), BinlogListing.EMPTY, Time.SYSTEM);
 * int port = server.port();
 * ...
 * server.close();
 * }</pre>
 *
 * Thread-safe. {@link #close()} stops listening, closes every connection and waits for the event
 * loops.
 */
public final class ReplicaServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaServer.class);
  private static final int RSA_BITS = 2048;
  private static final int FAST_AUTH_CACHE_ENTRIES = 10_000;
  private static final int THROTTLED_HOSTS = 10_000;

  private final EventLoopGroup acceptor;
  private final EventLoopGroup group;
  private final ExecutorService authExecutor;
  private final Channel listener;
  private final ServerState state;

  private ReplicaServer(
      EventLoopGroup acceptor,
      EventLoopGroup group,
      ExecutorService authExecutor,
      Channel listener,
      ServerState state) {
    this.acceptor = acceptor;
    this.group = group;
    this.authExecutor = authExecutor;
    this.listener = listener;
    this.state = state;
  }

  /**
   * Binds and starts serving. Throws {@link UncheckedIOException} (address in use, unreadable key
   * files) or {@link IllegalArgumentException} (bad keys) with the file or address named.
   *
   * @param config what to listen on and how to behave
   * @param dumpHandler what serves dump requests ({@link RefusingDumpHandler} until streaming
   *     exists)
   * @param binlogs what SHOW BINARY LOGS and friends report
   * @param time the clocks: the wall clock for UNIX_TIMESTAMP(), the login throttle and connection
   *     times, the monotonic one for the per-host connection rate and the refusal log
   */
  public static ReplicaServer start(
      ReplicaServerConfig config, DumpHandler dumpHandler, BinlogListing binlogs, Time time) {
    return start(
        config,
        dumpHandler,
        binlogs,
        SchemaStatements.off(config.dialect().productName()),
        time,
        ReplicationSource.NONE,
        DumpActivity.UNKNOWN);
  }

  /**
   * Binds and starts serving, with {@code schema} answering the statements that read table schemas
   * (the relay's schema source; {@link SchemaStatements#off} refuses them).
   */
  public static ReplicaServer start(
      ReplicaServerConfig config,
      DumpHandler dumpHandler,
      BinlogListing binlogs,
      SchemaStatements schema,
      Time time) {
    return start(
        config, dumpHandler, binlogs, schema, time, ReplicationSource.NONE, DumpActivity.UNKNOWN);
  }

  /**
   * Binds and starts serving, for a relay: as {@link #start(ReplicaServerConfig, DumpHandler,
   * BinlogListing, Time)}, with the relay's schema source, its own replication for {@code SHOW
   * REPLICA STATUS} and its dumps' states for {@code SHOW PROCESSLIST}.
   *
   * @param schema answers the statements that read table schemas ({@link SchemaStatements#off}
   *     refuses them)
   * @param source the relay's replication from its primary ({@link ReplicationSource#NONE} without
   *     one)
   * @param dumpActivity what each dump does, by connection id
   */
  public static ReplicaServer start(
      ReplicaServerConfig config,
      DumpHandler dumpHandler,
      BinlogListing binlogs,
      SchemaStatements schema,
      Time time,
      ReplicationSource source,
      DumpActivity dumpActivity) {
    Objects.requireNonNull(dumpHandler, "dumpHandler");
    Objects.requireNonNull(schema, "schema");
    SecureRandom random = new SecureRandom();
    ReplicaRegistry replicas = new ReplicaRegistry();
    ExecutorService authExecutor = authExecutor(config);
    ServerTls tls = ServerTls.of(config, random, Instant.ofEpochMilli(time.milliseconds()));
    ConnectionStats stats = new ConnectionStats(time, tls != null);
    ConnectionRegistry connections = new ConnectionRegistry(time);
    connections.dumpActivity(dumpActivity);
    ServerState state =
        new ServerState(
            config,
            plugins(config, random),
            new LoginThrottle(
                time,
                config.maxFailedLogins(),
                config.failedLoginWindow(),
                config.blockDuration(),
                THROTTLED_HOSTS),
            responder(
                config, binlogs, replicas, time, source, connections, stats, schema, tls != null),
            replicas,
            tls,
            dumpHandler,
            authExecutor,
            time,
            random,
            stats,
            connections);
    // Accepting has a thread of its own, so that connections are taken off the kernel's queue while
    // the I/O
    // threads are busy streaming; the queue holds max_connections, as MySQL's autosized back_log.
    EventLoopGroup acceptor = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(config.ioThreads(), NioIoHandler.newFactory());
    ChannelFuture bound =
        new ServerBootstrap()
            .group(acceptor, group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, Math.max(128, config.maxConnections()))
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childOption(
                ChannelOption.SO_SNDBUF,
                config.sendBufferBytes() > 0 ? config.sendBufferBytes() : null)
            .childHandler(new ServerPipeline(state))
            .bind(config.bind())
            .awaitUninterruptibly();
    if (!bound.isSuccess()) {
      acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      authExecutor.shutdownNow();
      throw new UncheckedIOException(
          new IOException(
              "Cannot listen on "
                  + config.bind()
                  + " for replicas: "
                  + bound.cause().getMessage()
                  + " (is another server using the port?)",
              bound.cause()));
    }
    Channel listener = bound.channel();
    LOG.info(
        "Downstream server listening on {} as {} {} (server_id {}){}",
        listener.localAddress(),
        config.dialect().productName(),
        config.identity().version(),
        config.identity().serverId(),
        tls == null
            ? ", without TLS"
            : tls.generated() ? " with TLS (generated certificate)" : " with TLS");
    if (tls != null && tls.generated()) {
      LOG.info(
          "TLS for replicas: no --ssl-cert given, generated a self-signed certificate '{}' valid until {};"
              + " SHA-256 fingerprint {} (a MariaDB client pins it with --ssl-fp; it changes at every start)",
          tls.certificate().getSubjectX500Principal().getName(),
          tls.certificate().getNotAfter().toInstant(),
          tls.fingerprint());
    }
    return new ReplicaServer(acceptor, group, authExecutor, listener, state);
  }

  /**
   * {@code authThreads} daemon threads for password checks. Each connection has at most one step
   * queued (it waits for the answer before it sends more), so a queue of {@code maxConnections}
   * never overflows; after {@link #close} new steps are refused.
   */
  private static ExecutorService authExecutor(ReplicaServerConfig config) {
    AtomicInteger threads = new AtomicInteger();
    ThreadFactory factory =
        r -> {
          Thread t = new Thread(r, "replica-auth-" + threads.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    return new ThreadPoolExecutor(
        config.authThreads(),
        config.authThreads(),
        0,
        TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(config.maxConnections()),
        factory);
  }

  private static QueryResponder responder(
      ReplicaServerConfig config,
      BinlogListing binlogs,
      ReplicaRegistry replicas,
      Time time,
      ReplicationSource source,
      ConnectionRegistry connections,
      ConnectionStats stats,
      SchemaStatements schema,
      boolean tls) {
    List<SystemVariable> variables =
        new ArrayList<>(config.dialect().variables(config.identity(), binlogs, source));
    if (!tls) {
      // What MySQL and MariaDB report when they were built with TLS but have no certificate to
      // offer.
      variables.add(SystemVariable.global("have_ssl", VariableType.STRING, "DISABLED"));
    }
    variables.addAll(config.extraVariables());
    return new QueryResponder(
        config.dialect(),
        config.identity(),
        new ServerVariables(variables),
        binlogs,
        replicas::list,
        time,
        source,
        connections,
        stats,
        schema);
  }

  private static Map<String, AuthPlugin> plugins(ReplicaServerConfig config, SecureRandom random) {
    RsaKeyPair keys;
    if (config.rsaPrivateKey() == null) {
      keys = RsaKeyPair.generate(RSA_BITS, random);
    } else {
      try {
        keys = RsaKeyPair.fromPrivateKeyPem(Files.readString(config.rsaPrivateKey()));
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot read the RSA private key "
                + config.rsaPrivateKey()
                + " for caching_sha2_password",
            e);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "RSA private key " + config.rsaPrivateKey() + ": " + e.getMessage(), e);
      }
    }
    // MySQL clients pad with OAEP for servers reporting 8.0.5 or later, PKCS#1 v1.5 for older ones.
    RsaKeyPair.Padding padding =
        SqlParser.versionNumber(config.identity().version()) >= 80005
            ? RsaKeyPair.Padding.OAEP_SHA1
            : RsaKeyPair.Padding.PKCS1_V15;
    AuthPlugin sha2 =
        new CachingSha2PasswordPlugin(
            keys, padding, new Sha2FastAuthCache(FAST_AUTH_CACHE_ENTRIES));
    AuthPlugin nativePassword = new NativePasswordPlugin();
    return Map.of(sha2.name(), sha2, nativePassword.name(), nativePassword);
  }

  /** The port listened on (the bound one when the config asked for port 0). */
  public int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  /**
   * Connections refused before the greeting because {@code maxConnections} were open
   * (ER_CON_COUNT_ERROR).
   */
  public long refusedOverMaxConnections() {
    return state.refusedOverLimit.get();
  }

  /** Connections refused before the greeting because their host exceeded its connection rate. */
  public long refusedOverHostRate() {
    return state.refusedOverRate.get();
  }

  /** Connections refused before the greeting because their host is blocked after failed logins. */
  public long refusedBlockedHost() {
    return state.refusedBlocked.get();
  }

  /** Logins completed over TLS since the start. */
  public long tlsLogins() {
    return state.tlsLogins.get();
  }

  /** The certificate presented to TLS clients (configured or generated), or empty without TLS. */
  public Optional<X509Certificate> tlsCertificate() {
    return Optional.ofNullable(state.tls).map(ServerTls::certificate);
  }

  /** Connections currently open. */
  public int openConnections() {
    return state.openConnections.get();
  }

  /** The replicas currently registered. */
  public ReplicaRegistry replicas() {
    return state.replicas;
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    state.channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    acceptor.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    authExecutor.shutdownNow();
    LOG.info("Downstream server on {} closed", listener.localAddress());
  }
}
