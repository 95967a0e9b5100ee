package org.binlogrelay.bench;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import org.binlogrelay.bench.report.Distribution;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.bench.report.Series;

/**
 * The relay's metrics over one {@code lag} run ({@code --relay-metrics}): its lag behind the
 * primary and its replicas' lag behind it, sampled every 500 ms, and the run's share of its latency
 * histogram (the last scrape minus the first). Every scrape, the first included, runs on the
 * sampling thread: the constructor returns at once, so a caller that paces a load (e.g. {@code
 * synthetic}'s pacer at the start of its measured window) is never held up by an HTTP round trip.
 * Thread-safe: one sampling thread, the run's thread stops it and reports.
 */
final class RelayMetricsSampler {
  private final RelayMetricsScraper metrics;
  private volatile RelayMetricsScraper.Snapshot first;
  private final Distribution upstreamMicros = new Distribution();
  private final Distribution replicaMicros = new Distribution();
  private final Series upstreamSeries = new Series("relay behind the primary ms (its metrics)");
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Thread sampler;
  private volatile boolean stopping;
  private long scrapes;
  private RelayMetricsScraper.Snapshot last;

  /**
   * Starts the sampling thread and returns: the thread scrapes once (the start) and then every 500
   * ms until {@link #stop}.
   */
  RelayMetricsSampler(RelayMetricsScraper metrics, long t0) {
    this.metrics = metrics;
    this.sampler =
        new Thread(
            () -> {
              try {
                first = metrics.scrape();
                while (!stopping) {
                  RelayMetricsScraper.Snapshot s = metrics.scrape();
                  long now = System.nanoTime();
                  synchronized (this) {
                    scrapes++;
                    if (s.upstreamBehind() != null) {
                      upstreamMicros.add(Math.round(s.upstreamBehind() * 1e6));
                      upstreamSeries.add((now - t0) / 1e9, s.upstreamBehind() * 1e3);
                    }
                    if (s.replicaBehind() != null) {
                      replicaMicros.add(Math.round(s.replicaBehind() * 1e6));
                    }
                  }
                  Thread.sleep(500);
                }
              } catch (IOException | RuntimeException e) {
                failure.set(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "relay-metrics");
    sampler.setDaemon(true);
    sampler.start();
  }

  /** Stops sampling and scrapes once more (the end); fails if a scrape failed. */
  void stop() throws IOException, InterruptedException {
    stopping = true;
    sampler.join(10_000);
    Throwable f = failure.get();
    if (f != null) {
      throw new IOException(
          "reading the relay's metrics at " + metrics.uri() + " failed: " + f.getMessage(), f);
    }
    if (first == null) {
      throw new IOException(
          "the first scrape of the relay's metrics at " + metrics.uri() + " did not complete");
    }
    last = metrics.scrape();
  }

  /** Seconds as milliseconds; "none" for a histogram without observations in the run. */
  private static Object millis(double seconds) {
    return Double.isNaN(seconds) ? "none" : seconds * 1e3;
  }

  /** Adds the figures of the run, between the first and the last scrape. */
  synchronized void report(Report report) {
    RelayMetricsScraper.Snapshot run = last.since(first);
    report
        .figure("relay_metrics_scrapes", "scrapes of " + metrics.uri(), scrapes, "")
        .figure(
            "relay_upstream_behind_p50_ms",
            "relay behind the primary (its metrics), p50",
            upstreamMicros.percentile(50) / 1000.0,
            "ms")
        .figure(
            "relay_upstream_behind_p99_ms",
            "relay behind the primary (its metrics), p99",
            upstreamMicros.percentile(99) / 1000.0,
            "ms")
        .figure(
            "relay_upstream_behind_max_ms",
            "relay behind the primary (its metrics), max",
            upstreamMicros.max() / 1000.0,
            "ms")
        .figure(
            "relay_replicas_behind_max_ms",
            "its replicas' feeds behind the relay (its metrics), max",
            replicaMicros.max() / 1000.0,
            "ms")
        .figure(
            "relay_latency_observations",
            "transactions handed to a replica during the run (histogram count)",
            Math.round(run.count()),
            "")
        .figure("relay_latency_mean_ms", "time in the relay, mean", millis(run.mean()), "ms")
        .figure(
            "relay_latency_p50_ms",
            "time in the relay, p50 (within its bucket)",
            millis(run.quantile(0.5)),
            "ms")
        .figure("relay_latency_p95_ms", "time in the relay, p95", millis(run.quantile(0.95)), "ms")
        .figure("relay_latency_p99_ms", "time in the relay, p99", millis(run.quantile(0.99)), "ms")
        .note(
            "relay figures from its /metrics: binlogrelay_upstream_behind_source_seconds and"
                + " binlogrelay_replica_behind_seconds sampled every 500 ms; binlogrelay_relay_latency_seconds over the"
                + " run (buckets 0.1 ms to 10 s, so a quantile is known to its bucket)");
  }

  /** The sampled lag behind the primary, in ms, for the run's plot. */
  Series upstreamSeries() {
    return upstreamSeries;
  }
}
