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
 * @param keptUnarchived with an archive: files that would have gone but stay because they, or an
 *     earlier file, are not archived yet (they go once uploaded); empty without an archive
 * @param removedUnarchived with an archive: files removed although not archived, by a purge that
 *     allowed it ({@link Retention#purgeTo(String, boolean, boolean)}): they are in neither tier
 *     now
 */
public record RetentionRun(
    List<String> removed,
    long bytes,
    int wanted,
    List<String> keptForReaders,
    List<String> keptUnsafe,
    int forced,
    List<String> keptUnarchived,
    List<String> removedUnarchived) {

  public RetentionRun {
    removed = List.copyOf(removed);
    keptForReaders = List.copyOf(keptForReaders);
    keptUnsafe = List.copyOf(keptUnsafe);
    keptUnarchived = List.copyOf(keptUnarchived);
    removedUnarchived = List.copyOf(removedUnarchived);
  }

  static RetentionRun nothing() {
    return new RetentionRun(List.of(), 0, 0, List.of(), List.of(), 0, List.of(), List.of());
  }
}
