package org.binlogrelay.bench;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.binlogrelay.bench.client.SourceAddress;
import org.binlogrelay.bench.client.SourceConnection;
import org.binlogrelay.bench.client.SourceException;
import org.binlogrelay.bench.report.Distribution;
import org.binlogrelay.bench.report.Report;
import org.binlogrelay.bench.report.Series;

/**
 * {@code lag}: end-to-end replication lag the pt-heartbeat way. A writer thread replaces one row on
 * the primary every {@code --interval}:
 *
 * <pre>
 *   relay_bench.heartbeat (id INT PRIMARY KEY, seq BIGINT, ts_us BIGINT)    one row, id 1
 * </pre>
 *
 * with an increasing {@code seq} and the writer's wall clock in microseconds. The reader polls the
 * row on the replica every {@code --poll}; when it sees a new {@code seq}, the lag sample is the
 * time from just before the writer sent that {@code REPLACE} to the poll that saw it, both on this
 * process's monotonic clock (so the primary's and the replica's clocks do not matter). The error is
 * one poll interval plus a query round trip; a sequence number overwritten before a poll saw it
 * gives no sample. Load comes from elsewhere.
 *
 * <p>With {@code --relay-metrics URL} (the relay's {@code /metrics}) the relay's own view is
 * reported next to it ({@link RelayMetricsScraper}): its lag behind the primary and its replicas'
 * lag behind it, sampled every 500 ms, and the time transactions spent in the relay during the run,
 * from the difference of its latency histogram between the start and the end (quantiles
 * interpolated within buckets, as Prometheus does).
 */
final class LagRun {
  /** What to run. Immutable. */
  record Settings(
      SourceAddress primary,
      SourceAddress replica,
      Duration duration,
      Duration interval,
      Duration poll,
      Duration connectTimeout,
      Duration setupTimeout,
      URI relayMetrics) {}

  private static final String TABLE = "relay_bench.heartbeat";

  private final Settings settings;

  LagRun(Settings settings) {
    this.settings = settings;
  }

  Report run() throws IOException, InterruptedException {
    try (SourceConnection writer = open(settings.primary());
        SourceConnection reader = open(settings.replica())) {
      writer.execute("CREATE DATABASE IF NOT EXISTS relay_bench");
      writer.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (id INT PRIMARY KEY, seq BIGINT NOT NULL, ts_us BIGINT NOT NULL)");
      writer.execute("REPLACE INTO " + TABLE + " VALUES (1, 0, 0)");
      awaitTable(reader);
      ConcurrentHashMap<Long, Long> sent = new ConcurrentHashMap<>();
      AtomicReference<Throwable> writerFailure = new AtomicReference<>();
      long t0 = System.nanoTime();
      long deadline = t0 + settings.duration().toNanos();
      long firstSeq = 0;
      Thread write =
          new Thread(
              () -> {
                long seq = firstSeq;
                try {
                  long next = System.nanoTime();
                  while (System.nanoTime() < deadline) {
                    seq++;
                    sent.put(seq, System.nanoTime());
                    long wallMicros = System.currentTimeMillis() * 1000;
                    writer.execute(
                        "REPLACE INTO " + TABLE + " VALUES (1, " + seq + ", " + wallMicros + ")");
                    next += settings.interval().toNanos();
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                  }
                } catch (IOException | RuntimeException e) {
                  writerFailure.set(e);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "lag-writer");
      write.setDaemon(true);
      write.start();
      Distribution lag = new Distribution();
      Series series = new Series("lag ms");
      RelayMetricsSampler relay =
          settings.relayMetrics() == null
              ? null
              : new RelayMetricsSampler(new RelayMetricsScraper(settings.relayMetrics()), t0);
      long lastSeen = firstSeq;
      long polls = 0;
      long drain = deadline + settings.setupTimeout().toNanos();
      long lastSent = Long.MAX_VALUE;
      while (true) {
        long now = System.nanoTime();
        if (!write.isAlive() && lastSent == Long.MAX_VALUE) {
          lastSent = sent.keySet().stream().mapToLong(Long::longValue).max().orElse(firstSeq);
        }
        if (lastSeen >= lastSent || now > drain) {
          break;
        }
        Throwable failure = writerFailure.get();
        if (failure != null) {
          throw new IOException(
              "the heartbeat writer on " + settings.primary() + " failed: " + failure.getMessage(),
              failure);
        }
        long seq = Long.parseLong(reader.queryValue("SELECT seq FROM " + TABLE + " WHERE id = 1"));
        long seen = System.nanoTime();
        polls++;
        if (seq > lastSeen) {
          Long at = sent.get(seq);
          if (at != null) {
            long micros = (seen - at) / 1000;
            lag.add(micros);
            series.add((seen - t0) / 1e9, micros / 1000.0);
          }
          lastSeen = seq;
        }
        Thread.sleep(settings.poll().toMillis());
      }
      write.join(settings.setupTimeout().toMillis());
      if (relay != null) {
        relay.stop();
      }
      long written = sent.size();
      Report report =
          new Report(
              "lag",
              "replication lag "
                  + settings.primary()
                  + " -> "
                  + settings.replica()
                  + " (pt-heartbeat style)");
      report
          .figure("seconds", "duration", settings.duration().toMillis() / 1000.0, "s")
          .figure("heartbeats_written", "heartbeats written", written, "")
          .figure("samples", "heartbeats seen on the replica", lag.count(), "")
          .figure("polls", "replica polls", polls, "")
          .figure("lag_p50_ms", "lag p50", lag.percentile(50) / 1000.0, "ms")
          .figure("lag_p95_ms", "lag p95", lag.percentile(95) / 1000.0, "ms")
          .figure("lag_p99_ms", "lag p99", lag.percentile(99) / 1000.0, "ms")
          .figure("lag_max_ms", "lag max", lag.max() / 1000.0, "ms")
          .figure("lag_mean_ms", "lag mean", lag.mean() / 1000.0, "ms")
          .figure("caught_up", "replica saw the last heartbeat", lastSeen >= lastSent, "")
          .note(
              "resolution: one --poll ("
                  + settings.poll().toMillis()
                  + " ms) plus a query round trip; heartbeat"
                  + " every "
                  + settings.interval().toMillis()
                  + " ms")
          .plot(
              "lag",
              "ms",
              relay == null ? List.of(series) : List.of(series, relay.upstreamSeries()));
      if (relay != null) {
        relay.report(report);
      }
      return report;
    }
  }

  private void awaitTable(SourceConnection reader) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + settings.setupTimeout().toNanos();
    while (true) {
      try {
        if ("0".equals(reader.queryValue("SELECT seq FROM " + TABLE + " WHERE id = 1"))) {
          return;
        }
      } catch (SourceException e) {
        if (System.nanoTime() > deadline) {
          throw new IOException(
              "the heartbeat table did not reach the replica "
                  + settings.replica()
                  + " within "
                  + settings.setupTimeout()
                  + ": is it replicating from "
                  + settings.primary()
                  + "?",
              e);
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "the heartbeat row did not reach the replica "
                + settings.replica()
                + " within "
                + settings.setupTimeout());
      }
      Thread.sleep(50);
    }
  }

  private SourceConnection open(SourceAddress address) throws IOException {
    return SourceConnection.open(address, settings.connectTimeout(), 1 << 16, 1 << 24);
  }
}
