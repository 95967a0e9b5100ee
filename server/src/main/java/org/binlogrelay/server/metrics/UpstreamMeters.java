package org.binlogrelay.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.binlogrelay.server.upstream.IngestStats;
import org.binlogrelay.server.upstream.UpstreamReplicator;
import org.binlogrelay.server.upstream.UpstreamState;
import org.binlogrelay.server.upstream.UpstreamStatus;
import org.binlogrelay.storage.Time;

/**
 * The upstream meters, read at each scrape from whichever {@link UpstreamReplicator} runs now (the
 * relay makes a new one after a stop or a failure). Counters continue across replicators: the
 * {@link UpstreamSuccession} keeps the totals of the replaced ones from the moment they are
 * replaced and reads them together with the current one's, so that a restart through the admin API
 * is never a counter reset. Thread-safe.
 */
final class UpstreamMeters {
  private final UpstreamSuccession upstream;
  private final Time time;

  /**
   * @param upstream an {@link UpstreamSuccession} (every replicator counted), or any supplier of
   *     the current replicator (then a replicator replaced between two scrapes is not counted)
   */
  UpstreamMeters(Supplier<Optional<UpstreamReplicator>> upstream, Time time) {
    this.upstream =
        upstream instanceof UpstreamSuccession s ? s : UpstreamSuccession.polling(upstream);
    this.time = time;
  }

  void bind(MeterRegistry registry) {
    for (UpstreamStatus status : UpstreamStatus.values()) {
      Gauge.builder("binlogrelay.upstream.state", this, m -> m.status() == status ? 1 : 0)
          .description(
              "1 for the upstream replicator's current state, 0 for the others; all 0 without a primary")
          .tags(Tags.of("state", status.name().toLowerCase(Locale.ROOT)))
          .register(registry);
    }
    Gauge.builder("binlogrelay.upstream.behind.source", this, m -> m.secondsBehind(false))
        .description(
            "Seconds the relay is behind the server it follows: 0 after a heartbeat, else now minus the"
                + " newest received transaction's commit time (immediate_commit_timestamp); NaN when not streaming")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder("binlogrelay.upstream.behind.original", this, m -> m.secondsBehind(true))
        .description(
            "As binlogrelay_upstream_behind_source_seconds, against the originating server's commit time"
                + " (original_commit_timestamp)")
        .baseUnit("seconds")
        .register(registry);
    counter(
        registry,
        "binlogrelay.upstream.received",
        "bytes",
        "Bytes of binlog events received from the primary",
        m -> m.upstream.totals().bytes());
    counter(
        registry,
        "binlogrelay.upstream.received.events",
        null,
        "Events received, heartbeats included",
        m -> m.upstream.totals().events());
    counter(
        registry,
        "binlogrelay.upstream.received.heartbeats",
        null,
        "Heartbeat events received",
        m -> m.upstream.totals().heartbeats());
    counter(
        registry,
        "binlogrelay.upstream.received.transactions",
        null,
        "Transactions received and stored",
        m -> m.upstream.totals().transactions());
    counter(
        registry,
        "binlogrelay.upstream.reconnects",
        null,
        "Connections to the primary that reached streaming" + " after the first one",
        m -> Math.max(0, m.upstream.totals().connections() - 1));
    for (IngestStats.FailureKind kind : IngestStats.FailureKind.values()) {
      FunctionCounter.builder(
              "binlogrelay.upstream.errors", this, m -> m.upstream.totals().failures(kind))
          .description("Failed connections or streams by kind")
          .tags(Tags.of("kind", kind.name().toLowerCase(Locale.ROOT)))
          .register(registry);
    }
    Gauge.builder(
            "binlogrelay.upstream.last.event.timestamp",
            this,
            m ->
                m.stats()
                    .map(
                        s ->
                            s.lastEventTimestamp() == 0
                                ? Double.NaN
                                : (double) s.lastEventTimestamp())
                    .orElse(Double.NaN))
        .description(
            "Header timestamp (epoch seconds) of the last event received that is not a heartbeat")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(
            "binlogrelay.upstream.last.commit.timestamp",
            this,
            m ->
                m.stats()
                    .map(
                        s ->
                            s.immediateCommitMicros() > 0
                                ? s.immediateCommitMicros() / 1e6
                                : s.transactionTimestamp() > 0
                                    ? (double) s.transactionTimestamp()
                                    : Double.NaN)
                    .orElse(Double.NaN))
        .description("Commit time (epoch seconds) of the newest transaction received")
        .baseUnit("seconds")
        .register(registry);
  }

  private void counter(
      MeterRegistry registry,
      String name,
      String unit,
      String help,
      ToDoubleFunction<UpstreamMeters> f) {
    FunctionCounter.Builder<UpstreamMeters> b =
        FunctionCounter.builder(name, this, f).description(help);
    if (unit != null) {
      b.baseUnit(unit);
    }
    b.register(registry);
  }

  private Optional<UpstreamReplicator> replicator() {
    return upstream.get();
  }

  private Optional<UpstreamState> state() {
    return replicator().map(UpstreamReplicator::state);
  }

  private Optional<IngestStats> stats() {
    return replicator().map(UpstreamReplicator::ingestStats);
  }

  private UpstreamStatus status() {
    return state().map(UpstreamState::status).orElse(null);
  }

  private double secondsBehind(boolean original) {
    Optional<UpstreamReplicator> r = replicator();
    if (r.isEmpty()) {
      return Double.NaN;
    }
    Double s =
        r.get()
            .ingestStats()
            .secondsBehind(
                r.get().state().status() == UpstreamStatus.STREAMING,
                time.milliseconds(),
                original);
    return s == null ? Double.NaN : s;
  }
}
