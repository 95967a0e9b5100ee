package org.binlogrelay.storage.retention;

import java.util.List;

/**
 * What one retention run or manual purge did. Immutable.
 *
 * @param removed the files removed, oldest first
 * @param bytes their total size
 * @param wanted how many files the policy (or the purge target) wanted removed
 * @param keptForReaders files that would have gone but stay because a registered reader still needs
 *     them (MySQL's PURGE warns the same way: "file %s was not purged because it was being read by
 *     %d thread(s)")
 * @param keptUnsafe files that would have gone but are the current file, not closed or not durable
 *     yet
 * @param forced files removed although a registered reader still needed them ({@link
 *     RetentionPolicy#purgeFilesInUse()} or a forced {@link Retention#purgeTo})
 */
public record RetentionRun(
    List<String> removed,
    long bytes,
    int wanted,
    List<String> keptForReaders,
    List<String> keptUnsafe,
    int forced) {

  public RetentionRun {
    removed = List.copyOf(removed);
    keptForReaders = List.copyOf(keptForReaders);
    keptUnsafe = List.copyOf(keptUnsafe);
  }

  static RetentionRun nothing() {
    return new RetentionRun(List.of(), 0, 0, List.of(), List.of(), 0);
  }
}
