package org.binlogrelay.server.serving;

import java.util.List;
import java.util.Objects;
import org.binlogrelay.server.downstream.DumpConnection;
import org.binlogrelay.server.downstream.DumpHandler;
import org.binlogrelay.server.downstream.DumpRequest;
import org.binlogrelay.storage.BinlogStore;

/**
 * Serves replicas' binlog streams from a {@link BinlogStore}: the relay's dump threads. Each dump request
 * becomes a {@link DumpSession} on its connection's event loop, which finds where the replica starts (by file
 * and position, MySQL GTID auto-position, or MariaDB's {@code @slave_connect_state}), refuses what a server
 * would refuse with the server's error, and then streams the stored events byte for byte behind the artificial
 * ROTATE and FORMAT_DESCRIPTION the servers send, with heartbeats while idle.
 *
 * <pre>{@code
 * ServingConfig serving = ServingConfig.builder(relayServerId).readers(retentionRegistry)
 *     .checkedSources(() -> Set.of(primaryUuid)).build();
 * StoreDumpHandler dumps = new StoreDumpHandler(store, serving);
 * ReplicaServer server = ReplicaServer.start(config, dumps, new StoreBinlogListing(store), clock);
 * }</pre>
 *
 * One stored copy serves every replica: each dump has its own {@code BinlogReader} over the same files, and an
 * idle dump costs no thread and no CPU (it waits on the reader's future). See docs/serving.md.
 *
 * <p>Thread-safe: one handler serves every connection.
 */
public final class StoreDumpHandler implements DumpHandler {
  private final BinlogStore store;
  private final ServingConfig config;
  private final DumpFlavor flavor;
  private final DumpRegistry registry = new DumpRegistry();

  public StoreDumpHandler(BinlogStore store, ServingConfig config) {
    this.store = Objects.requireNonNull(store, "store");
    this.config = Objects.requireNonNull(config, "config");
    this.flavor = DumpFlavor.of(store.flavor());
  }

  @Override
  public void dump(DumpRequest request, DumpConnection connection) {
    ReplicaSettings settings = flavor.settings(connection.variables());
    String name = "server_id " + request.serverId() + " at " + connection.client().peerAddress() + " (connection "
        + connection.client().connectionId() + ")";
    new DumpSession(connection.channel(), connection.nextSequenceId(), request, settings, flavor, store, config,
        registry, name).start();
  }

  /** The dumps being served now. */
  public List<DumpStatus> dumps() {
    return registry.sessions().stream().map(DumpSession::status).toList();
  }
}
