package org.binlogrelay.storage;

import java.time.Instant;

/**
 * A snapshot of whether the store accepts writes, and the counters to export as metrics. Immutable;
 * taken by {@link BinlogStore#health()}.
 *
 * @param condition accepting, or why not
 * @param since when the store entered {@code condition} (opened, failed, or resumed), by the
 *     store's clock
 * @param lastError the last error's description (what failed, where, and the system's error text),
 *     kept after a resume; {@code null} if there never was one
 * @param diskFullEvents how many times the store entered {@link StoreCondition#DISK_FULL} (from
 *     accepting, or from {@link StoreCondition#IO_ERROR} when a later error said ENOSPC)
 * @param ioErrorEvents how many times the store entered {@link StoreCondition#IO_ERROR}
 * @param resumes how many times {@link BinlogStore#tryResume()} returned the store to accepting
 * @param failedResumes how many {@link BinlogStore#tryResume()} attempts found the condition not
 *     cleared
 */
public record StoreHealth(
    StoreCondition condition,
    Instant since,
    String lastError,
    long diskFullEvents,
    long ioErrorEvents,
    long resumes,
    long failedResumes) {

  /** True if appending works. */
  public boolean accepting() {
    return condition == StoreCondition.ACCEPTING;
  }
}
