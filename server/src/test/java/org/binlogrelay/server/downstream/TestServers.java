package org.binlogrelay.server.downstream;

import io.netty.channel.embedded.EmbeddedChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import org.binlogrelay.protocol.auth.AuthPlugin;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.CachingSha2PasswordPlugin;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.auth.NativePasswordPlugin;
import org.binlogrelay.protocol.auth.RsaKeyPair;
import org.binlogrelay.protocol.auth.Sha2FastAuthCache;
import org.binlogrelay.server.downstream.account.LoginThrottle;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.downstream.sql.QueryResponder;
import org.binlogrelay.server.downstream.sql.ReplicationSource;
import org.binlogrelay.server.downstream.sql.SchemaStatements;
import org.binlogrelay.server.downstream.sql.ServerVariables;
import org.binlogrelay.server.downstream.sql.SqlFlavor;
import org.binlogrelay.server.downstream.sql.SystemVariable;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.testing.ManualTime;

/**
 * Test side: accounts, keys and a {@link ServerState} for driving the pipeline through {@link
 * EmbeddedChannel}s.
 */
final class TestServers {
  static final RsaKeyPair KEYS = RsaKeyPair.generate(2048, new SecureRandom());

  /**
   * repl / repl-pass (caching_sha2), nat / nat-pass (native), plain / plain-pass (sha2, no
   * privileges).
   */
  static final String ACCOUNTS =
      "repl@% REPLICATION_SLAVE,REPLICATION_CLIENT "
          + CachingSha2Hash.create("repl-pass", 5000, new Random(1)).storedForm()
          + "\n"
          + "nat@% REPLICATION_SLAVE,REPLICATION_CLIENT "
          + NativePasswordHash.of("nat-pass").storedForm()
          + "\n"
          + "plain@% - "
          + CachingSha2Hash.create("plain-pass", 5000, new Random(2)).storedForm()
          + "\n";

  private TestServers() {}

  /** A clock tests move by hand, at 2026-01-01T00:00:00Z (0 on its monotonic clock). */
  static ManualTime manualTime() {
    return new ManualTime(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
  }

  static ReplicaServerConfig.Builder config(SqlFlavor dialect) {
    return ReplicaServerConfig.builder(dialect)
        .accounts(UserAccounts.parse(ACCOUNTS))
        .serverId(77)
        .serverUuid("11111111-2222-3333-4444-555555555555")
        .maxPacketBytes(1 << 20)
        .connectTimeout(Duration.ofSeconds(10))
        .idleTimeout(Duration.ofSeconds(60))
        .loginThrottle(3, Duration.ofMinutes(1), Duration.ofMinutes(5));
  }

  static ServerState state(ReplicaServerConfig config, DumpHandler dumps, Time time) {
    return state(config, dumps, time, new Sha2FastAuthCache(100), BinlogListing.EMPTY);
  }

  static ServerState state(
      ReplicaServerConfig config,
      DumpHandler dumps,
      Time time,
      Sha2FastAuthCache cache,
      BinlogListing binlogs) {
    return state(config, dumps, time, cache, binlogs, Runnable::run);
  }

  /**
   * With {@code authExecutor} running the login steps (the tests' default runs them at once, on the
   * caller).
   */
  static ServerState state(
      ReplicaServerConfig config,
      DumpHandler dumps,
      Time time,
      Sha2FastAuthCache cache,
      BinlogListing binlogs,
      Executor authExecutor) {
    return state(config, dumps, time, cache, binlogs, authExecutor, UnaryOperator.identity());
  }

  /**
   * With the auth plugins as {@code plugins} makes them of the real ones (to watch or hold their
   * exchanges).
   */
  static ServerState state(
      ReplicaServerConfig config,
      DumpHandler dumps,
      Time time,
      Sha2FastAuthCache cache,
      BinlogListing binlogs,
      Executor authExecutor,
      UnaryOperator<AuthPlugin> plugins) {
    return state(
        config,
        dumps,
        time,
        cache,
        binlogs,
        authExecutor,
        plugins,
        SchemaStatements.off(config.dialect().productName()));
  }

  /** With {@code schema} answering the statements that read table schemas. */
  static ServerState state(
      ReplicaServerConfig config, DumpHandler dumps, Time time, SchemaStatements schema) {
    return state(
        config,
        dumps,
        time,
        new Sha2FastAuthCache(100),
        BinlogListing.EMPTY,
        Runnable::run,
        UnaryOperator.identity(),
        schema);
  }

  static ServerState state(
      ReplicaServerConfig config,
      DumpHandler dumps,
      Time time,
      Sha2FastAuthCache cache,
      BinlogListing binlogs,
      Executor authExecutor,
      UnaryOperator<AuthPlugin> plugins,
      SchemaStatements schema) {
    AuthPlugin sha2 =
        plugins.apply(new CachingSha2PasswordPlugin(KEYS, RsaKeyPair.Padding.OAEP_SHA1, cache));
    AuthPlugin nat = plugins.apply(new NativePasswordPlugin());
    ReplicaRegistry replicas = new ReplicaRegistry();
    List<SystemVariable> vars =
        new ArrayList<>(config.dialect().variables(config.identity(), binlogs));
    vars.addAll(config.extraVariables());
    ConnectionStats stats = new ConnectionStats(time, false);
    ConnectionRegistry connections = new ConnectionRegistry(time);
    QueryResponder responder =
        new QueryResponder(
            config.dialect(),
            config.identity(),
            new ServerVariables(vars),
            binlogs,
            replicas::list,
            time,
            ReplicationSource.NONE,
            connections,
            stats,
            schema);
    return new ServerState(
        config,
        Map.of(sha2.name(), sha2, nat.name(), nat),
        new LoginThrottle(
            time,
            config.maxFailedLogins(),
            config.failedLoginWindow(),
            config.blockDuration(),
            100),
        responder,
        replicas,
        null,
        dumps,
        authExecutor,
        time,
        new SecureRandom(),
        stats,
        connections);
  }

  static EmbeddedChannel channel(ServerState state) {
    return new EmbeddedChannel(new ServerPipeline(state));
  }
}
