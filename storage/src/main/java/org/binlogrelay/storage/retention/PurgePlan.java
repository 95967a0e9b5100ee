package org.binlogrelay.storage.retention;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;

/**
 * Which leading files one purge removes, decided from the store's state alone (no I/O), so that the
 * rules are testable on their own. Immutable.
 *
 * <p>The limits apply in this order, each on what the previous ones left: files that must stay
 * whatever is asked (being written, not closed, not durable, the last file: {@code keptUnsafe});
 * with an archive, the first file not archived and every later one ({@code keptUnarchived}, unless
 * unarchived files may go); then the oldest registered reader's file and every later one ({@code
 * keptForReaders}, unless forced), where with {@link ArchiveRules#readersPinOnlyUnarchived()} a
 * reader holds only from the first file it needs that is not archived.
 *
 * @param firstKept index of the first file kept: files {@code [0, firstKept)} go
 * @param wanted index the policy or purge target asked for
 * @param keptForReaders files kept because a reader needs them
 * @param keptUnsafe files kept because they are being written, not closed or not durable (or the
 *     last file)
 * @param forced files removed although a reader needs them
 * @param keptUnarchived files kept because they, or an earlier file, are not archived yet (always
 *     empty without an archive)
 * @param removedUnarchived files removed although not archived: gone from both tiers (only when
 *     unarchived files may go)
 */
record PurgePlan(
    int firstKept,
    int wanted,
    List<String> keptForReaders,
    List<String> keptUnsafe,
    int forced,
    List<String> keptUnarchived,
    List<String> removedUnarchived) {

  /** The plan without an archive (see the full form). */
  static PurgePlan decide(
      List<FileMetadata> files,
      String current,
      Position durable,
      int wanted,
      Optional<Position> oldestReader,
      boolean force) {
    return decide(files, current, durable, wanted, oldestReader, force, ArchiveRules.none(), false);
  }

  /**
   * The plan for removing the first {@code wanted} of {@code files}.
   *
   * @param files the stored files, oldest first
   * @param current the file being written, {@code null} if none
   * @param durable the store's durable boundary, {@code null} if nothing is durable
   * @param oldestReader the position of the oldest registered reader, if any
   * @param force remove files readers need too
   * @param archive the archive rules ({@link ArchiveRules#none()} for none)
   * @param purgeUnarchived with an archive, remove files not archived too (they are then lost)
   */
  static PurgePlan decide(
      List<FileMetadata> files,
      String current,
      Position durable,
      int wanted,
      Optional<Position> oldestReader,
      boolean force,
      ArchiveRules archive,
      boolean purgeUnarchived) {
    int want = Math.max(0, Math.min(wanted, files.size()));
    int keep = Math.min(want, firstUnsafe(files, current, durable));
    List<String> keptUnsafe = names(files, keep, want);
    List<String> keptUnarchived = List.of();
    if (archive.enabled() && !purgeUnarchived) {
      int unarchived = firstUnarchived(files, 0, keep, archive);
      keptUnarchived = names(files, unarchived, keep);
      keep = unarchived;
    }
    int readerFile = oldestReader.map(p -> indexOf(files, p)).orElse(files.size());
    if (archive.enabled() && archive.readersPinOnlyUnarchived()) {
      readerFile = firstUnarchived(files, Math.min(readerFile, keep), keep, archive);
    }
    List<String> keptForReaders = List.of();
    int forced = 0;
    if (keep > readerFile) {
      if (force) {
        forced = keep - readerFile;
      } else {
        keptForReaders = names(files, readerFile, keep);
        keep = readerFile;
      }
    }
    List<String> removedUnarchived = List.of();
    if (archive.enabled() && purgeUnarchived) {
      removedUnarchived = new ArrayList<>();
      for (int i = 0; i < keep; i++) {
        if (!archive.archived(files.get(i).name())) {
          removedUnarchived.add(files.get(i).name());
        }
      }
    }
    return new PurgePlan(
        keep,
        want,
        List.copyOf(keptForReaders),
        List.copyOf(keptUnsafe),
        forced,
        List.copyOf(keptUnarchived),
        List.copyOf(removedUnarchived));
  }

  /**
   * The index of the first file in {@code [from, to)} that is not archived, {@code to} if all are.
   */
  private static int firstUnarchived(
      List<FileMetadata> files, int from, int to, ArchiveRules archive) {
    for (int i = from; i < to; i++) {
      if (!archive.archived(files.get(i).name())) {
        return i;
      }
    }
    return to;
  }

  /**
   * The first file that must stay whatever the policy says: being written, not closed, not durable,
   * or last.
   */
  private static int firstUnsafe(List<FileMetadata> files, String current, Position durable) {
    for (int i = 0; i < files.size() - 1; i++) {
      FileMetadata f = files.get(i);
      if (f.name().equals(current) || !f.closed() || !durableThrough(f, durable)) {
        return i;
      }
    }
    return Math.max(0, files.size() - 1);
  }

  private static boolean durableThrough(FileMetadata f, Position durable) {
    if (durable == null) {
      return false;
    }
    long sequence = BinlogFileName.sequence(f.name());
    return durable.fileSequence() > sequence
        || (durable.file().equals(f.name()) && durable.offset() >= f.size());
  }

  /** The index of the file a reader at {@code p} stands in: the first stored file not before it. */
  private static int indexOf(List<FileMetadata> files, Position p) {
    for (int i = 0; i < files.size(); i++) {
      if (BinlogFileName.sequence(files.get(i).name()) >= p.fileSequence()) {
        return i;
      }
    }
    return files.size();
  }

  private static List<String> names(List<FileMetadata> files, int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(files.get(i).name());
    }
    return out;
  }
}
