package org.binlogrelay.archive.upload;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The uploader's measurements, plain atomics for the server to map to meters (archive/ knows no
 * metrics library): the backlog (pending files and bytes, the oldest one's age), what was uploaded
 * (files, bytes; files found already archived by another relay), failures by kind, the time uploads
 * took (in total, and the last file's) and the time they waited for catch-ups. Written by the
 * uploader's thread; read from any thread.
 */
public final class UploadCounters {
  private final AtomicLong pendingFiles = new AtomicLong();
  private final AtomicLong pendingBytes = new AtomicLong();
  private final AtomicLong oldestPendingEventTime = new AtomicLong();
  private final AtomicLong uploadedFiles = new AtomicLong();
  private final AtomicLong uploadedBytes = new AtomicLong();
  private final AtomicLong alreadyArchivedFiles = new AtomicLong();
  private final AtomicLong lastUploadNanos = new AtomicLong();
  private final AtomicLong uploadNanos = new AtomicLong();
  private final AtomicLong deferredNanos = new AtomicLong();
  private volatile long deferredSince; // nanoseconds of the uploader's Time; 0: not deferring
  private final Map<FailureKind, AtomicLong> failures = new EnumMap<>(FailureKind.class);

  private final LongSupplier nanoClock;

  UploadCounters(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    for (FailureKind k : FailureKind.values()) {
      failures.put(k, new AtomicLong());
    }
  }

  /** Closed files not archived yet. */
  public long pendingFiles() {
    return pendingFiles.get();
  }

  /** Their bytes. */
  public long pendingBytes() {
    return pendingBytes.get();
  }

  /**
   * How old the oldest pending file is, in seconds at {@code nowMillis} (its last event's header
   * time, about when the primary closed it); 0 when nothing is pending.
   */
  public long oldestPendingAgeSeconds(long nowMillis) {
    long t = oldestPendingEventTime.get();
    return t == 0 ? 0 : Math.max(0, nowMillis / 1000 - t);
  }

  /** Files this relay uploaded and verified. */
  public long uploadedFiles() {
    return uploadedFiles.get();
  }

  /** Their bytes (the data objects'). */
  public long uploadedBytes() {
    return uploadedBytes.get();
  }

  /** Files found archived already (by another relay, or before a restart), no bytes sent. */
  public long alreadyArchivedFiles() {
    return alreadyArchivedFiles.get();
  }

  /** Failed attempts of {@code kind}. */
  public long failures(FailureKind kind) {
    return failures.get(kind).get();
  }

  /** How long the last file took from its first attempt to VERIFIED, in nanoseconds. */
  public long lastUploadNanos() {
    return lastUploadNanos.get();
  }

  /**
   * How long the uploaded files took in total, each from its first attempt to VERIFIED (retries and
   * back-off included), in nanoseconds.
   */
  public long uploadNanos() {
    return uploadNanos.get();
  }

  /** Whether uploads wait now for the relay to catch up its primary ({@link CatchUpDeferral}). */
  public boolean deferring() {
    return deferredSince != 0;
  }

  /**
   * How long uploads waited for catch-ups in total, in nanoseconds, the wait in progress included.
   */
  public long deferredNanos() {
    long since = deferredSince;
    return deferredNanos.get() + (since == 0 ? 0 : Math.max(0, nanoClock.getAsLong() - since));
  }

  void deferring(boolean on) {
    long nowNanos = nanoClock.getAsLong();
    long since = deferredSince;
    if (on && since == 0) {
      deferredSince = nowNanos == 0 ? 1 : nowNanos;
    } else if (!on && since != 0) {
      deferredNanos.addAndGet(Math.max(0, nowNanos - since));
      deferredSince = 0;
    }
  }

  void pending(long files, long bytes, long oldestEventTime) {
    pendingFiles.set(files);
    pendingBytes.set(bytes);
    oldestPendingEventTime.set(files == 0 ? 0 : Math.max(1, oldestEventTime));
  }

  void uploaded(long bytes, long nanos) {
    uploadedFiles.incrementAndGet();
    uploadedBytes.addAndGet(bytes);
    lastUploadNanos.set(nanos);
    uploadNanos.addAndGet(nanos);
  }

  void alreadyArchived() {
    alreadyArchivedFiles.incrementAndGet();
  }

  void failed(FailureKind kind) {
    failures.get(kind).incrementAndGet();
  }
}
