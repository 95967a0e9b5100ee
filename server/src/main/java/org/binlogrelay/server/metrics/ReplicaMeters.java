package org.binlogrelay.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The per-replica meters, labelled {@code server_id} and {@code host} only. {@link #update} (after
 * each {@link ReplicaLag#sample()}) registers the meters of replicas that connected and removes
 * those of replicas that left, so that the series of a gone replica disappear. Cardinality is
 * bounded: at most {@code cap} replicas are labelled; others are counted in {@code
 * binlogrelay_replicas_unlabelled}. Two dumps with the same server_id and host (mysqlbinlog clients
 * with server_id 0) share one label set: the first one is shown.
 *
 * <p>Not thread-safe: {@link #update} runs on the metrics thread; the meters read the latest views,
 * published through a volatile map.
 */
final class ReplicaMeters {
  private final MeterRegistry registry;
  private final int cap;
  private final Map<String, List<Meter>> meters = new HashMap<>();
  private volatile Map<String, ReplicaView> byLabels = Map.of();
  private volatile int unlabelled;

  ReplicaMeters(MeterRegistry registry, int cap) {
    this.registry = registry;
    this.cap = cap;
    Gauge.builder("binlogrelay.replicas.unlabelled", this, m -> m.unlabelled)
        .description(
            "Connected replicas without their own series because of the cap on labelled replicas")
        .register(registry);
  }

  void update(List<ReplicaView> views) {
    Map<String, ReplicaView> next = new HashMap<>();
    int over = 0;
    for (ReplicaView v : views) {
      String key = key(v);
      if (next.containsKey(key)) {
        continue;
      }
      if (!meters.containsKey(key) && meters.size() + countNew(next) >= cap) {
        over++;
        continue;
      }
      next.put(key, v);
    }
    byLabels = next;
    unlabelled = over;
    for (String key : new ArrayList<>(meters.keySet())) {
      if (!next.containsKey(key)) {
        meters.remove(key).forEach(registry::remove);
      }
    }
    for (Map.Entry<String, ReplicaView> e : next.entrySet()) {
      meters.computeIfAbsent(e.getKey(), k -> register(k, e.getValue()));
    }
  }

  private int countNew(Map<String, ReplicaView> next) {
    int n = 0;
    for (String k : next.keySet()) {
      if (!meters.containsKey(k)) {
        n++;
      }
    }
    return n;
  }

  private static String key(ReplicaView v) {
    return v.status().replica().serverId() + "@" + v.status().replica().host();
  }

  private List<Meter> register(String key, ReplicaView v) {
    Tags tags =
        Tags.of(
            "server_id",
            Long.toString(v.status().replica().serverId()),
            "host",
            v.status().replica().host());
    List<Meter> list = new ArrayList<>();
    list.add(
        gauge(
            "binlogrelay.replica.connected",
            null,
            "1 while the replica's dump is served",
            tags,
            key,
            r -> 1));
    list.add(
        gauge(
            "binlogrelay.replica.paused",
            null,
            "1 while the replica's feed is paused through the admin API",
            tags,
            key,
            r -> r.status().paused() ? 1 : 0));
    list.add(
        gauge(
            "binlogrelay.replica.behind.bytes",
            "bytes",
            "Stored bytes after the replica's position up to the" + " relay's head, across files",
            tags,
            key,
            ReplicaView::bytesBehind));
    list.add(
        gauge(
            "binlogrelay.replica.behind.seconds",
            "seconds",
            "Newest stored transaction's timestamp minus the"
                + " replica's last sent one's; 0 when caught up",
            tags,
            key,
            r -> nan(r.secondsBehind())));
    list.add(
        gauge(
            "binlogrelay.replica.send.rate",
            "bytes_per_second",
            "Bytes sent per second over the last 10 s",
            tags,
            key,
            r -> nan(r.sendRate())));
    list.add(
        gauge(
            "binlogrelay.replica.catchup.rate",
            "bytes_per_second",
            "How fast the bytes behind shrink per"
                + " second over the last 10 s (negative when they grow)",
            tags,
            key,
            r -> nan(r.catchUpRate())));
    list.add(
        gauge(
            "binlogrelay.replica.catchup.eta",
            "seconds",
            "Estimated seconds until caught up: bytes behind"
                + " divided by the catch-up rate; 0 when caught up, NaN when not catching up",
            tags,
            key,
            r -> nan(r.etaSeconds())));
    list.add(
        counter(
            "binlogrelay.replica.sent",
            "bytes",
            "Bytes of stored events sent on this connection",
            tags,
            key,
            r -> r.status().bytesSent()));
    list.add(
        counter(
            "binlogrelay.replica.sent.events",
            null,
            "Stored events sent on this connection",
            tags,
            key,
            r -> r.status().eventsSent()));
    list.add(
        counter(
            "binlogrelay.replica.sent.transactions",
            null,
            "Transactions sent on this connection",
            tags,
            key,
            r -> r.status().transactionsSent()));
    list.add(
        counter(
            "binlogrelay.replica.stalls",
            null,
            "Times the connection became unwritable (the replica read"
                + " slower than the relay sent)",
            tags,
            key,
            r -> r.status().stalls()));
    return list;
  }

  private static double nan(Double d) {
    return d == null ? Double.NaN : d;
  }

  private Meter gauge(
      String name,
      String unit,
      String help,
      Tags tags,
      String key,
      ToDoubleFunction<ReplicaView> f) {
    Gauge.Builder<ReplicaMeters> b =
        Gauge.builder(name, this, m -> m.read(key, f)).description(help).tags(tags);
    if (unit != null) {
      b.baseUnit(unit);
    }
    return b.register(registry);
  }

  private Meter counter(
      String name,
      String unit,
      String help,
      Tags tags,
      String key,
      ToDoubleFunction<ReplicaView> f) {
    FunctionCounter.Builder<ReplicaMeters> b =
        FunctionCounter.builder(name, this, m -> m.read(key, f)).description(help).tags(tags);
    if (unit != null) {
      b.baseUnit(unit);
    }
    return b.register(registry);
  }

  private double read(String key, ToDoubleFunction<ReplicaView> f) {
    ReplicaView v = byLabels.get(key);
    return v == null ? Double.NaN : f.applyAsDouble(v);
  }
}
