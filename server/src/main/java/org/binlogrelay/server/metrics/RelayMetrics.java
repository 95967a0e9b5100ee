package org.binlogrelay.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.server.downstream.ReplicaServer;
import org.binlogrelay.server.serving.StoreDumpHandler;
import org.binlogrelay.server.upstream.IngestStats;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.StoreListener;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.retention.Retention;

/**
 * Every meter of the relay in one Prometheus registry (names and units in docs/metrics.md):
 * upstream, store, per-replica feeds, relay-added latency, JVM and process, and the archive once
 * the relay has one ({@link #archive}). The parts are read through suppliers, so that the meters
 * follow a store opened late and an upstream replicator replaced through the admin API.
 *
 * <p>{@link #sample()} must run once a second (the relay's metrics thread): it measures the
 * replicas' lag and rates ({@link ReplicaLag}), updates their labelled meters and the upstream info
 * series. {@link #scrape()} renders the Prometheus text format. Thread-safe.
 */
public final class RelayMetrics implements AutoCloseable {
  /** At most this many replicas get series of their own. */
  public static final int MAX_LABELLED_REPLICAS = 200;

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final BoundaryLog boundaries;
  private final RelayLatency latency;
  private final StoreMeters storeMeters;
  private final ReplicaLag lag;
  private final ReplicaMeters replicaMeters;
  private final Supplier<Optional<UpstreamReplicator>> upstream;
  private final JvmGcMetrics gcMetrics;
  private final MultiGauge upstreamInfo;
  private final MultiGauge upstreamPosition;
  private final MultiGauge lastGtid;

  /**
   * Held here: Micrometer keeps only weak references to the objects its gauges and function
   * counters read.
   */
  private final UpstreamMeters upstreamMeters;

  private final Supplier<ReplicaServer> replicaServer;

  private final Time time;
  private final Supplier<List<Retention>> retentions;

  /** The archive's meters once {@link #archive} registered them (held: see upstreamMeters). */
  private volatile ArchiveMeters archiveMeters;

  /**
   * @param store the store, {@code null} before it is open
   * @param retentions the retentions whose purges count (scheduled and manual)
   * @param upstream the upstream replicator now, empty without a primary
   * @param dumps the dump handler, {@code null} before replicas are served
   * @param replicaServer the downstream server, {@code null} before it listens
   */
  public RelayMetrics(
      Time time,
      Supplier<BinlogStore> store,
      Supplier<List<Retention>> retentions,
      Supplier<Optional<UpstreamReplicator>> upstream,
      Supplier<StoreDumpHandler> dumps,
      Supplier<ReplicaServer> replicaServer) {
    this.upstream = upstream;
    this.time = time;
    this.retentions = retentions;
    this.boundaries = new BoundaryLog(time);
    this.latency = new RelayLatency(boundaries, time, registry);
    this.storeMeters = new StoreMeters(store, retentions, registry);
    this.lag =
        new ReplicaLag(
            store, () -> dumps.get() == null ? List.of() : dumps.get().dumps(), boundaries, time);
    this.replicaMeters = new ReplicaMeters(registry, MAX_LABELLED_REPLICAS);
    this.upstreamMeters = new UpstreamMeters(upstream, time);
    upstreamMeters.bind(registry);
    Gauge.builder("binlogrelay.replicas.connected", this, m -> m.lag.views().size())
        .description("Replicas (and other binlog clients) being served a dump")
        .register(registry);
    FunctionCounter.builder(
            "binlogrelay.replica.drops", dumps, d -> d.get() == null ? 0 : d.get().stalledDrops())
        .description(
            "Dumps the relay ended itself, by reason: stalled (the replica stopped reading for the stall"
                + " timeout) or kicked (the admin API)")
        .tags(Tags.of("reason", "stalled"))
        .register(registry);
    FunctionCounter.builder(
            "binlogrelay.replica.drops", dumps, d -> d.get() == null ? 0 : d.get().kicks())
        .tags(Tags.of("reason", "kicked"))
        .register(registry);
    this.replicaServer = replicaServer;
    refusals("max_connections", ReplicaServer::refusedOverMaxConnections);
    refusals("host_rate", ReplicaServer::refusedOverHostRate);
    refusals("host_blocked", ReplicaServer::refusedBlockedHost);
    this.upstreamInfo =
        MultiGauge.builder("binlogrelay.upstream.info")
            .description(
                "1, labelled with the source followed and the primary's binlog file the stream stands in (one"
                    + " series, replaced when they change: at a switch or a rotation)")
            .register(registry);
    this.upstreamPosition =
        MultiGauge.builder("binlogrelay.upstream.position")
            .description(
                "Offset in the primary's binlog file (the info series' file) the stream continues from")
            .baseUnit("bytes")
            .register(registry);
    this.lastGtid =
        MultiGauge.builder("binlogrelay.upstream.last.gtid.sequence")
            .description(
                "Sequence number of the last GTID received, labelled with the rest of it: gtid_source is"
                    + " the MySQL source UUID (and tag, uuid:tag) or the MariaDB domain-server_id")
            .register(registry);
    new JvmMemoryMetrics().bindTo(registry);
    this.gcMetrics = new JvmGcMetrics();
    gcMetrics.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
  }

  /**
   * Register with the store ({@link BinlogStore#addListener}): boundaries, forces, refused appends.
   */
  public List<StoreListener> storeListeners() {
    return List.of(boundaries, storeMeters);
  }

  /**
   * Registers the archive's meters ({@code binlogrelay_archive_*} and {@code
   * binlogrelay_retention_kept_unarchived_files}, docs/metrics.md): once, when the relay has opened
   * its archive. Without an archive they are not exported at all.
   *
   * @throws IllegalStateException if an archive was registered already
   */
  public void archive(Archive archive) {
    synchronized (this) {
      if (archiveMeters != null) {
        throw new IllegalStateException("the archive's meters are registered already");
      }
      ArchiveMeters meters = new ArchiveMeters(archive, retentions, time);
      meters.bind(registry);
      archiveMeters = meters;
    }
  }

  /** Give to serving ({@code ServingConfig.Builder#observer}): relay-added latency. */
  public RelayLatency dumpObserver() {
    return latency;
  }

  /** The replicas' lag and rates as of the last sample. */
  public ReplicaLag lag() {
    return lag;
  }

  /**
   * Unregisters the GC notification listeners and closes the registry. Idempotent; after it,
   * scrapes are empty.
   */
  @Override
  public void close() {
    gcMetrics.close();
    registry.close();
  }

  /** Measures the replicas and refreshes the labelled meters; once a second. */
  public void sample() {
    replicaMeters.update(lag.sample());
    Optional<UpstreamReplicator> r = upstream.get();
    if (r.isEmpty()) {
      upstreamInfo.register(List.of(), true);
      upstreamPosition.register(List.of(), true);
      lastGtid.register(List.of(), true);
      return;
    }
    UpstreamState s = r.get().state();
    IngestStats i = r.get().ingestStats();
    // labels change only at a switch or a rotation; per-transaction values are gauge values, not
    // labels
    Tags where =
        Tags.of("source", s.source(), "file", s.position() == null ? "" : s.position().file());
    upstreamInfo.register(List.of(MultiGauge.Row.of(where, 1)), true);
    upstreamPosition.register(
        s.position() == null ? List.of() : List.of(MultiGauge.Row.of(where, s.position().offset())),
        true);
    String gtid = i.lastGtid();
    int split =
        gtid == null ? -1 : gtid.contains(":") ? gtid.lastIndexOf(':') : gtid.lastIndexOf('-');
    if (split > 0) {
      try {
        long sequence = Long.parseLong(gtid.substring(split + 1));
        lastGtid.register(
            List.of(MultiGauge.Row.of(Tags.of("gtid_source", gtid.substring(0, split)), sequence)),
            true);
      } catch (NumberFormatException e) {
        lastGtid.register(List.of(), true);
      }
    }
  }

  /**
   * The content type that selects the Prometheus text format (0.0.4), which {@link #scrape()}
   * writes.
   */
  /** Suffixes of exposed series that the registry's family names do not have. */
  private static final List<String> FAMILY_SUFFIXES = List.of("_total", "_info");

  private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";

  /** The Prometheus text exposition (format 0.0.4). */
  public String scrape() {
    return registry.scrape();
  }

  /**
   * The families named in {@code names} only (the exposed names, with their {@code _total} or unit
   * suffix), all of them when it is empty: a sampler that wants the heap need not render every
   * replica's series.
   */
  public String scrape(Set<String> names) {
    if (names.isEmpty()) {
      return registry.scrape();
    }
    // the registry knows a counter as its family's name, without the _total it exposes
    Set<String> families = new HashSet<>(names);
    for (String name : names) {
      for (String suffix : FAMILY_SUFFIXES) {
        if (name.endsWith(suffix) && name.length() > suffix.length()) {
          families.add(name.substring(0, name.length() - suffix.length()));
        }
      }
    }
    return registry.scrape(TEXT_FORMAT, families);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  private void refusals(String reason, ToLongFunction<ReplicaServer> count) {
    FunctionCounter.builder(
            "binlogrelay.downstream.connections.refused",
            replicaServer,
            r -> r.get() == null ? 0 : count.applyAsLong(r.get()))
        .description(
            "Connections to the replica port refused before the greeting (error 1040 or 1129), by reason:"
                + " max_connections, host_rate (max-connect-rate-per-host), host_blocked (failed logins)")
        .tags(Tags.of("reason", reason))
        .register(registry);
  }
}
