package org.binlogrelay.server.serving;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.server.downstream.Command;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.downstream.sql.SessionVariables;
import org.binlogrelay.server.downstream.sql.UserValue;
import org.binlogrelay.storage.BinlogSource;

/**
 * Test side: dump sessions on {@link EmbeddedChannel}s, with the user variables and requests
 * replicas send. The channel's clock is frozen; tests move it with {@code advanceTimeBy}.
 */
final class Dumps {
  static final long RELAY_SERVER_ID = 4000;

  /** The sequence id a dump's first packet carries (the request's plus one). */
  static final int FIRST_SEQUENCE_ID = 1;

  private Dumps() {}

  private static final List<EmbeddedChannel> OPEN = new ArrayList<>();

  static EmbeddedChannel channel() {
    EmbeddedChannel channel = new EmbeddedChannel();
    channel.freezeTime();
    OPEN.add(channel);
    return channel;
  }

  /**
   * Closes every channel made since the last call and releases what is still queued on them (after
   * each test).
   */
  static void releaseAll() {
    for (EmbeddedChannel channel : OPEN) {
      channel.finishAndReleaseAll();
    }
    OPEN.clear();
  }

  static ServingConfig.Builder config() {
    return ServingConfig.builder(RELAY_SERVER_ID);
  }

  /** Starts a dump on {@code channel} and runs what it queued. */
  static ReplicaStream start(
      EmbeddedChannel channel,
      BinlogSource store,
      ServingConfig config,
      DumpRequest request,
      SessionVariables variables) {
    return start(channel, store, config, request, variables, new DumpRegistry());
  }

  static ReplicaStream start(
      EmbeddedChannel channel,
      BinlogSource store,
      ServingConfig config,
      DumpRequest request,
      SessionVariables variables,
      DumpRegistry registry) {
    return start(channel, store, config, request, variables, registry, () -> {});
  }

  /**
   * Starts a dump, runs {@code afterStart} right after the stream's start (before the tasks it
   * queued), then runs the queued tasks.
   */
  static ReplicaStream start(
      EmbeddedChannel channel,
      BinlogSource store,
      ServingConfig config,
      DumpRequest request,
      SessionVariables variables,
      DumpRegistry registry,
      Runnable afterStart) {
    DumpFlavor flavor = DumpFlavor.of(store.flavor());
    ReplicaStream session =
        new ReplicaStream(
            channel,
            FIRST_SEQUENCE_ID,
            request,
            flavor.settings(variables),
            flavor,
            store,
            config,
            registry,
            "test replica " + request.serverId(),
            request.serverId(),
            new DumpStatus.Replica(request.serverId(), "127.0.0.1", "repl", "", "", 0, false, 0));
    session.start();
    afterStart.run();
    channel.runPendingTasks();
    return session;
  }

  /** A replica's variables: name, value pairs; values that parse as integers are integers. */
  static SessionVariables variables(String... nameValues) {
    SessionVariables vars = new SessionVariables();
    for (int i = 0; i < nameValues.length; i += 2) {
      String value = nameValues[i + 1];
      UserValue.Kind kind =
          value.matches("-?\\d+") ? UserValue.Kind.INTEGER : UserValue.Kind.STRING;
      vars.setUser(nameValues[i], new UserValue(value, kind));
    }
    return vars;
  }

  /** What a MySQL 9.7 replica sets: checksum CRC32 and a heartbeat period. */
  static SessionVariables mysqlReplica(long heartbeatNanos) {
    return variables(
        "master_heartbeat_period",
        Long.toString(heartbeatNanos),
        "source_heartbeat_period",
        Long.toString(heartbeatNanos),
        "master_binlog_checksum",
        "CRC32",
        "source_binlog_checksum",
        "CRC32");
  }

  /** What a MariaDB 10.11 replica sets (without its connect state). */
  static SessionVariables mariadbReplica(long heartbeatNanos, String connectState) {
    SessionVariables vars =
        variables(
            "master_heartbeat_period",
            Long.toString(heartbeatNanos),
            "master_binlog_checksum",
            "CRC32",
            "mariadb_slave_capability",
            "4",
            "slave_gtid_strict_mode",
            "1",
            "slave_gtid_ignore_duplicates",
            "0");
    if (connectState != null) {
      vars.setUser("slave_connect_state", new UserValue(connectState, UserValue.Kind.STRING));
    }
    return vars;
  }

  static DumpRequest byPosition(String file, long position, int flags, long serverId) {
    return new DumpRequest(Command.COM_BINLOG_DUMP, serverId, flags, file, position, null);
  }

  static DumpRequest byGtids(GtidSet gtids, int flags, long serverId) {
    return new DumpRequest(Command.COM_BINLOG_DUMP_GTID, serverId, flags, "", 4, gtids);
  }

  /** MariaDB GTID start: a COM_BINLOG_DUMP whose start set came from @slave_connect_state. */
  static DumpRequest mariadbGtid(GtidSet connectState, int flags, long serverId) {
    return new DumpRequest(Command.COM_BINLOG_DUMP, serverId, flags, "", 4, connectState);
  }
}
