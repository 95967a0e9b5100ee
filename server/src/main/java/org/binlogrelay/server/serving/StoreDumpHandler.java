package org.binlogrelay.server.serving;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.binlogrelay.server.downstream.Command;
import org.binlogrelay.server.downstream.DumpConnection;
import org.binlogrelay.server.downstream.DumpHandler;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.server.downstream.ReplicaRegistration;
import org.binlogrelay.storage.BinlogSource;

/**
 * Serves replicas' binlog streams from a {@link BinlogStore}: the relay's dump threads. Each dump
 * request becomes a {@link ReplicaStream} on its connection's event loop, which finds where the
 * replica starts (by file and position, MySQL GTID auto-position, or MariaDB's
 * {@code @slave_connect_state}), refuses what a server would refuse with the server's error, and
 * then streams the stored events byte for byte behind the artificial ROTATE and FORMAT_DESCRIPTION
 * the servers send, with heartbeats while idle.
 *
 * <pre>{@code
 * ServingConfig serving = ServingConfig.builder(relayServerId).readers(retentionRegistry)
 *     .checkedSources(() -> Set.of(primaryUuid)).build();
 * StoreDumpHandler dumps = new StoreDumpHandler(store, serving);
 * ReplicaServer server = ReplicaServer.start(config, dumps, new StoreBinlogListing(store), time);
 * }</pre>
 *
 * One stored copy serves every replica: each dump has its own {@code BinlogReader} over the same
 * files, and an idle dump costs no thread and no CPU (it waits on the reader's future). See
 * docs/serving.md.
 *
 * <p>Thread-safe: one handler serves every connection.
 */
public final class StoreDumpHandler implements DumpHandler {
  private final BinlogSource store;
  private final ServingConfig config;
  private final DumpFlavor flavor;
  private final DumpRegistry registry = new DumpRegistry();

  public StoreDumpHandler(BinlogSource store, ServingConfig config) {
    this.store = Objects.requireNonNull(store, "store");
    this.config = Objects.requireNonNull(config, "config");
    this.flavor = DumpFlavor.of(store.flavor());
  }

  /**
   * Batches the shared tails read and framed once ({@link ServingConfig#sharedBatches()}), the
   * deliveries of those batches to replicas' channels, and the framings they took: {@code [batches,
   * deliveries, framings]}. Any thread.
   */
  public long[] sharedBatchCounts() {
    TailGroups.Stats stats = registry.tails().stats();
    return new long[] {stats.batches(), stats.deliveries(), stats.framings()};
  }

  @Override
  public void dump(DumpRequest request, DumpConnection connection) {
    ReplicaSettings settings = flavor.settings(connection.variables());
    String name =
        "server_id "
            + request.serverId()
            + " at "
            + connection.client().peerAddress()
            + " (connection "
            + connection.client().connectionId()
            + ")";
    boolean gtid =
        request.command() == Command.COM_BINLOG_DUMP_GTID
            || connection.variables().userText("slave_connect_state").isPresent();
    DumpStatus.Replica replica =
        new DumpStatus.Replica(
            request.serverId(),
            connection.client().peerAddress(),
            connection.client().user(),
            settings.replicaUuid(),
            connection.registration().map(ReplicaRegistration::host).orElse(""),
            connection.registration().map(ReplicaRegistration::port).orElse(0),
            gtid,
            config.time().milliseconds());
    new ReplicaStream(
            connection.channel(),
            connection.nextSequenceId(),
            request,
            settings,
            flavor,
            store,
            config,
            registry,
            name,
            connection.client().connectionId(),
            replica)
        .start();
  }

  /** The dumps being served now. */
  public List<DumpStatus> dumps() {
    return registry.sessions().stream().map(ReplicaStream::status).toList();
  }

  /** The dump of connection {@code id}, if it is being served. */
  public Optional<DumpStatus> dump(long id) {
    return registry.session(id).map(ReplicaStream::status);
  }

  /**
   * Pauses the feed of dump {@code id}: nothing more is sent, heartbeats included, as if the
   * network stalled (the stall timeout does not apply: the channel stays writable). The replica's
   * own {@code replica_net_timeout} still applies: past it, the replica reconnects.
   *
   * @return false if no such dump is being served
   */
  public boolean pause(long id) {
    return registry
        .session(id)
        .map(
            s -> {
              s.pause();
              return true;
            })
        .orElse(false);
  }

  /** Resumes a paused feed exactly where it stopped; false if no such dump is being served. */
  public boolean resume(long id) {
    return registry
        .session(id)
        .map(
            s -> {
              s.resume();
              return true;
            })
        .orElse(false);
  }

  /** Closes dump {@code id}'s connection; false if no such dump is being served. */
  public boolean kick(long id) {
    return registry
        .session(id)
        .map(
            s -> {
              s.kick();
              return true;
            })
        .orElse(false);
  }

  /** Dumps the relay ended because their replica stopped reading for the stall timeout. */
  public long stalledDrops() {
    return registry.stalledDrops();
  }

  /** Dumps ended through {@link #kick}. */
  public long kicks() {
    return registry.kicks();
  }
}
