package org.binlogrelay.storage.retention;

import java.time.Duration;
import java.util.Objects;

/**
 * Which stored files {@link Retention} removes, oldest first. Each limit is off at its zero value;
 * a file goes if any limit wants it gone, and whatever the limits say, the file being written,
 * files not yet closed and durable, and the last stored file always stay. Immutable.
 *
 * @param maxAge remove files whose last event is older than this (by the event timestamps, against
 *     the retention's clock), like {@code binlog_expire_logs_seconds}; {@link Duration#ZERO} for no
 *     age limit
 * @param maxTotalBytes remove the oldest files while the stored files take more than this; 0 for no
 *     limit
 * @param maxFiles keep at most this many files; 0 for no limit
 * @param purgeFilesInUse remove files even if a registered reader still needs them (counted in
 *     {@link Retention#forcedPurges()}); false keeps them until the readers move on
 */
public record RetentionPolicy(
    Duration maxAge, long maxTotalBytes, int maxFiles, boolean purgeFilesInUse) {

  public RetentionPolicy {
    Objects.requireNonNull(maxAge, "maxAge");
    if (maxAge.isNegative()) {
      throw new IllegalArgumentException("maxAge must not be negative, got " + maxAge);
    }
    if (maxTotalBytes < 0) {
      throw new IllegalArgumentException(
          "maxTotalBytes must not be negative, got " + maxTotalBytes);
    }
    if (maxFiles < 0) {
      throw new IllegalArgumentException("maxFiles must not be negative, got " + maxFiles);
    }
  }

  /** No limit: nothing is removed except by {@link Retention#purgeTo}. */
  public static RetentionPolicy keepEverything() {
    return new RetentionPolicy(Duration.ZERO, 0, 0, false);
  }

  public RetentionPolicy withMaxAge(Duration value) {
    return new RetentionPolicy(value, maxTotalBytes, maxFiles, purgeFilesInUse);
  }

  public RetentionPolicy withMaxTotalBytes(long value) {
    return new RetentionPolicy(maxAge, value, maxFiles, purgeFilesInUse);
  }

  public RetentionPolicy withMaxFiles(int value) {
    return new RetentionPolicy(maxAge, maxTotalBytes, value, purgeFilesInUse);
  }

  public RetentionPolicy withPurgeFilesInUse(boolean value) {
    return new RetentionPolicy(maxAge, maxTotalBytes, maxFiles, value);
  }
}
