package org.binlogrelay.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.binlogrelay.archive.Archive;
import org.binlogrelay.archive.ArchiveStatus;
import org.binlogrelay.archive.upload.FailureKind;
import org.binlogrelay.archive.upload.UploadStatus;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.retention.Retention;

/**
 * The archive's meters (docs/metrics.md, "Archive"), registered only when the relay has an archive
 * ({@code --archive}): the upload backlog and throughput, failures by kind, the uploader's state,
 * what the archive holds, the fetch cache, and the files retention keeps because they are not
 * archived yet.
 *
 * <p>The uploader's counters ({@link Archive#counters()}, plain atomics) are read at each scrape.
 * The rest comes from {@link Archive#status()}, a snapshot that lists the archive's catalog: one
 * snapshot serves every meter of a scrape (it is reused for up to {@link #SNAPSHOT_MILLIS}). Hold
 * the instance (Micrometer keeps only weak references to the objects its gauges read). Thread-safe.
 */
final class ArchiveMeters {
  /** How long one status snapshot serves the meters (one scrape reads it about 15 times). */
  static final long SNAPSHOT_MILLIS = 1000;

  private final Archive archive;
  private final Supplier<List<Retention>> retentions;
  private final Time time;
  private final Object lock = new Object();
  private ArchiveStatus snapshot;
  private long snapshotAt;

  /**
   * @param retentions the retentions whose kept-unarchived files are summed
   */
  ArchiveMeters(Archive archive, Supplier<List<Retention>> retentions, Time time) {
    this.archive = archive;
    this.retentions = retentions;
    this.time = time;
  }

  void bind(MeterRegistry registry) {
    Gauge.builder(
            "binlogrelay.archive.pending.files", this, m -> m.archive.counters().pendingFiles())
        .description("Closed local binlog files not archived yet")
        .register(registry);
    Gauge.builder("binlogrelay.archive.pending", this, m -> m.archive.counters().pendingBytes())
        .description("Bytes of the closed local binlog files not archived yet")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder(
            "binlogrelay.archive.oldest.pending.age",
            this,
            m -> m.archive.counters().oldestPendingAgeSeconds(m.time.milliseconds()))
        .description(
            "Age of the oldest file waiting to be archived (now minus its last event's time); 0 when"
                + " none waits")
        .baseUnit("seconds")
        .register(registry);
    FunctionCounter.builder(
            "binlogrelay.archive.uploaded.files", this, m -> m.archive.counters().uploadedFiles())
        .description("Files this relay uploaded to the archive and verified")
        .register(registry);
    FunctionCounter.builder(
            "binlogrelay.archive.uploaded", this, m -> m.archive.counters().uploadedBytes())
        .description("Bytes of the files uploaded and verified (its rate is the upload throughput)")
        .baseUnit("bytes")
        .register(registry);
    FunctionCounter.builder(
            "binlogrelay.archive.upload", this, m -> m.archive.counters().uploadNanos() / 1e9)
        .description(
            "Time the uploaded files took, each from its first attempt to verified (retries"
                + " included); uploaded bytes over it is the throughput while uploading")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(
            "binlogrelay.archive.last.upload.duration",
            this,
            m -> m.archive.counters().lastUploadNanos() / 1e9)
        .description("How long the last uploaded file took, from its first attempt to verified")
        .baseUnit("seconds")
        .register(registry);
    FunctionCounter.builder(
            "binlogrelay.archive.deferred", this, m -> m.archive.counters().deferredNanos() / 1e9)
        .description(
            "Time uploads waited while the relay caught up its primary"
                + " (--archive-defer-while-behind); state=\"deferred\" while they wait")
        .baseUnit("seconds")
        .register(registry);
    for (FailureKind kind : FailureKind.values()) {
      FunctionCounter.builder(
              "binlogrelay.archive.failures", this, m -> m.archive.counters().failures(kind))
          .description(
              "Failed upload attempts by kind (the admin API's archive lastError says why)")
          .tags(Tags.of("kind", kind.name().toLowerCase(Locale.ROOT)))
          .register(registry);
    }
    for (UploadStatus.State state : UploadStatus.State.values()) {
      Gauge.builder("binlogrelay.archive.state", this, m -> m.state() == state ? 1 : 0)
          .description("1 for the uploader's current state, 0 for the others")
          .tags(Tags.of("state", state.name().toLowerCase(Locale.ROOT)))
          .register(registry);
    }
    gauge(
        registry,
        "binlogrelay.archive.archived.files",
        null,
        "Files in the archive (uploaded and verified, by any relay)",
        ArchiveStatus::archivedFiles);
    gauge(
        registry,
        "binlogrelay.archive.archived",
        "bytes",
        "Bytes of the files in the archive",
        ArchiveStatus::archivedBytes);
    gauge(
        registry,
        "binlogrelay.archive.cache",
        "bytes",
        "Bytes of archived files held in the local fetch cache",
        ArchiveStatus::cacheBytes);
    counter(
        registry,
        "binlogrelay.archive.fetches",
        null,
        "Archived files fetched into the local cache (for replicas or PITR reading before the store)",
        ArchiveStatus::fetches);
    counter(
        registry,
        "binlogrelay.archive.fetched",
        "bytes",
        "Bytes of the archived files fetched",
        ArchiveStatus::fetchedBytes);
    counter(
        registry,
        "binlogrelay.archive.fetch.failures",
        null,
        "Fetches of archived files that failed (the reader got error 1236)",
        ArchiveStatus::fetchFailures);
    counter(
        registry,
        "binlogrelay.archive.deleted.files",
        null,
        "Archived files deleted by the archive's retention (--archive-retention)",
        ArchiveStatus::deletedFiles);
    Gauge.builder(
            "binlogrelay.retention.kept.unarchived.files",
            this,
            m -> m.retentions.get().stream().mapToLong(Retention::keptUnarchivedFiles).sum())
        .description(
            "Files the last retention run or purge kept only because they were not archived yet")
        .register(registry);
  }

  private void gauge(
      MeterRegistry registry,
      String name,
      String unit,
      String help,
      ToDoubleFunction<ArchiveStatus> f) {
    Gauge.Builder<ArchiveMeters> b =
        Gauge.builder(name, this, m -> f.applyAsDouble(m.status())).description(help);
    if (unit != null) {
      b.baseUnit(unit);
    }
    b.register(registry);
  }

  private void counter(
      MeterRegistry registry,
      String name,
      String unit,
      String help,
      ToDoubleFunction<ArchiveStatus> f) {
    FunctionCounter.Builder<ArchiveMeters> b =
        FunctionCounter.builder(name, this, m -> f.applyAsDouble(m.status())).description(help);
    if (unit != null) {
      b.baseUnit(unit);
    }
    b.register(registry);
  }

  private UploadStatus.State state() {
    UploadStatus upload = status().upload();
    return upload == null ? null : upload.state();
  }

  /** The archive's status, read at most once per {@link #SNAPSHOT_MILLIS}. */
  private ArchiveStatus status() {
    long now = time.milliseconds();
    synchronized (lock) {
      if (snapshot == null || now - snapshotAt >= SNAPSHOT_MILLIS || now < snapshotAt) {
        snapshot = archive.status();
        snapshotAt = now;
      }
      return snapshot;
    }
  }
}
