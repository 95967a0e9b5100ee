package org.binlogrelay.server;

import java.util.Objects;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.server.downstream.sql.BinlogListing;
import org.binlogrelay.server.serving.DumpObserver;
import org.binlogrelay.server.serving.ServingConfig;
import org.binlogrelay.server.serving.StoreBinlogListing;
import org.binlogrelay.server.serving.StoreDumpHandler;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.ReaderRegistry;

/**
 * What the downstream server hands replicas' dump requests to, and what it lists in {@code SHOW
 * BINARY LOGS}: the one place that chooses them, so the relay's wiring does not change when serving
 * does.
 *
 * <p>Dumps are served from the store by {@link StoreDumpHandler}, whose readers register in the
 * relay's {@link ReaderRegistry} (so retention keeps what replicas still read); {@link
 * StoreBinlogListing} answers from the store's readable boundary. A MySQL replica's GTIDs are
 * checked against the source of the newest stored transaction ({@link PrimarySources}).
 *
 * @param dumpHandler serves COM_BINLOG_DUMP and COM_BINLOG_DUMP_GTID
 * @param listing feeds SHOW BINARY LOGS, SHOW BINARY LOG STATUS and the GTID variables
 */
record ServingWiring(StoreDumpHandler dumpHandler, BinlogListing listing) {

  ServingWiring {
    Objects.requireNonNull(dumpHandler, "dumpHandler");
    Objects.requireNonNull(listing, "listing");
  }

  /**
   * The serving parts over {@code store}.
   *
   * @param readers where readers register, so retention keeps the files they still need
   * @param serverId the relay's server_id, which the events it makes up carry
   * @param observer hears what each dump hands to its socket (relay-added latency)
   * @param time the relay's clock; its wall clock stamps the dumps' connection times
   */
  static ServingWiring over(
      BinlogStore store, ReaderRegistry readers, long serverId, DumpObserver observer, Time time) {
    return over(store, store, null, readers, serverId, observer, time);
  }

  /**
   * The serving parts over {@code binlogs}: the store, or with an archive the store and the
   * archived files before it.
   *
   * @param store the store (the sources of its newest transaction are checked)
   * @param binlogs what dumps and listings read ({@code store} itself without an archive)
   * @param archive the archive, null without one: dumps wait for its fetches up to its fetch
   *     timeout and {@code SHOW BINARY LOGS} says where each file is ({@code Tier})
   */
  static ServingWiring over(
      BinlogStore store,
      BinlogSource binlogs,
      Archive archive,
      ReaderRegistry readers,
      long serverId,
      DumpObserver observer,
      Time time) {
    return over(store, binlogs, archive, readers, serverId, observer, time, true);
  }

  /** As above, with shared batches ({@link ServingConfig#sharedBatches()}) on or off. */
  static ServingWiring over(
      BinlogStore store,
      BinlogSource binlogs,
      Archive archive,
      ReaderRegistry readers,
      long serverId,
      DumpObserver observer,
      Time time,
      boolean sharedBatches) {
    ServingConfig.Builder builder =
        ServingConfig.builder(serverId)
            .readers(readers)
            .observer(observer)
            .time(time)
            .checkedSources(() -> PrimarySources.of(store))
            .sharedBatches(sharedBatches);
    if (archive != null) {
      builder.archive(archive.location().toString(), archive.config().fetchTimeout());
    }
    ServingConfig config = builder.build();
    return new ServingWiring(
        new StoreDumpHandler(binlogs, config),
        archive == null
            ? new StoreBinlogListing(binlogs)
            : new StoreBinlogListing(binlogs, store, archive.tier()));
  }
}
