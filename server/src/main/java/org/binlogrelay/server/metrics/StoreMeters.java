package org.binlogrelay.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.RecoveryReport;
import org.binlogrelay.storage.StoreCondition;
import org.binlogrelay.storage.StoreListener;
import org.binlogrelay.storage.Truncation;
import org.binlogrelay.storage.retention.Retention;

/**
 * The store's meters: gauges read from the {@link BinlogStore} at each scrape (files, bytes, oldest
 * event, recovery), counters read from the {@link Retention}s (scheduled and manual purges), and
 * what the store reports through {@link StoreListener} (force latency, group-commit size, refused
 * appends). Register it as a listener of the store. Thread-safe.
 */
final class StoreMeters implements StoreListener {
  private final Supplier<BinlogStore> store;
  private final Supplier<List<Retention>> retentions;
  private final Timer fsync;
  private final DistributionSummary groupCommit;
  private final MeterRegistry registry;

  StoreMeters(
      Supplier<BinlogStore> store, Supplier<List<Retention>> retentions, MeterRegistry registry) {
    this.store = store;
    this.retentions = retentions;
    this.registry = registry;
    this.fsync =
        Timer.builder("binlogrelay.store.fsync")
            .description("Duration of each force (fdatasync) of the open binlog file")
            .serviceLevelObjectives(
                micros(50),
                micros(100),
                micros(250),
                micros(500),
                micros(1000),
                micros(2500),
                micros(5000),
                micros(10_000),
                micros(25_000),
                micros(50_000),
                micros(100_000),
                micros(250_000),
                micros(500_000),
                micros(1_000_000),
                micros(2_500_000))
            .register(registry);
    this.groupCommit =
        DistributionSummary.builder("binlogrelay.store.group.commit")
            .description("Transactions made durable by one force (group commit size)")
            .baseUnit("transactions")
            .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
            .register(registry);
    for (StoreCondition c : StoreCondition.values()) {
      if (c == StoreCondition.ACCEPTING) {
        continue; // appends are refused only while the store does not accept writes
      }
      Counter.builder("binlogrelay.store.appends.blocked")
          .description(
              "Appends refused because the store stopped accepting writes (disk full, I/O error)")
          .tags(Tags.of("condition", c.name().toLowerCase(Locale.ROOT)))
          .register(registry);
    }
    Gauge.builder("binlogrelay.store.files", this, m -> m.files().size())
        .description("Binlog files stored")
        .register(registry);
    Gauge.builder(
            "binlogrelay.store.size",
            this,
            m -> m.files().stream().mapToLong(FileMetadata::size).sum())
        .description("Bytes of the stored binlog files (the open one up to its readable end)")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("binlogrelay.store.oldest.event.timestamp", this, StoreMeters::oldestEvent)
        .description("Timestamp (epoch seconds) of the oldest stored file's first event")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(
            "binlogrelay.store.accepting",
            this,
            m -> m.store.get() != null && m.store.get().health().accepting() ? 1 : 0)
        .description(
            "1 while the store accepts writes, 0 after a disk-full or I/O error until it resumed")
        .register(registry);
    Gauge.builder(
            "binlogrelay.store.recovery.duration",
            this,
            m -> m.recovery(r -> r.took().toNanos() / 1e9))
        .description("How long opening (recovering) the store took at start")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(
            "binlogrelay.store.recovery.truncated",
            this,
            m -> m.recovery(r -> r.truncations().stream().mapToLong(Truncation::bytes).sum()))
        .description(
            "Bytes recovery cut from the stored files at start (an incomplete transaction, a torn tail)")
        .baseUnit("bytes")
        .register(registry);
    FunctionCounter.builder(
            "binlogrelay.store.purged.files", this, m -> m.sum(Retention::filesPurged))
        .description("Files removed by retention or a purge")
        .register(registry);
    FunctionCounter.builder("binlogrelay.store.purged", this, m -> m.sum(Retention::bytesPurged))
        .description("Bytes of the files removed by retention or a purge")
        .baseUnit("bytes")
        .register(registry);
    FunctionCounter.builder("binlogrelay.store.purges", this, m -> m.sum(Retention::runs))
        .description("Retention runs and manual purges")
        .register(registry);
    FunctionCounter.builder(
            "binlogrelay.store.forced.purges", this, m -> m.sum(Retention::forcedPurges))
        .description("Files removed although a replica still read them (forced purges)")
        .register(registry);
  }

  private static Duration micros(long us) {
    return Duration.ofNanos(us * 1000);
  }

  @Override
  public void forced(long nanos, long transactions) {
    fsync.record(nanos, TimeUnit.NANOSECONDS);
    if (transactions > 0) {
      groupCommit.record((double) transactions);
    }
  }

  @Override
  public void appendRefused(StoreCondition condition) {
    registry
        .counter(
            "binlogrelay.store.appends.blocked",
            "condition",
            condition.name().toLowerCase(Locale.ROOT))
        .increment();
  }

  private List<FileMetadata> files() {
    BinlogStore s = store.get();
    return s == null ? List.of() : s.files();
  }

  private double oldestEvent() {
    List<FileMetadata> f = files();
    return f.isEmpty() || f.get(0).firstEventTime() == 0 ? Double.NaN : f.get(0).firstEventTime();
  }

  private double recovery(ToDoubleFunction<RecoveryReport> f) {
    BinlogStore s = store.get();
    return s == null ? Double.NaN : f.applyAsDouble(s.recoveryReport());
  }

  private double sum(ToLongFunction<Retention> f) {
    return retentions.get().stream().mapToLong(f).sum();
  }
}
