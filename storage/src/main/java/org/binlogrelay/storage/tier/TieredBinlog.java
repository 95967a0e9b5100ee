package org.binlogrelay.storage.tier;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.EventBoundaries;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.OpenedFile;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreException;
import org.binlogrelay.storage.StoreWatch;
import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One binlog over two tiers: the archived files that come before the local store's first file, then
 * the store's files. Readers and lookups given a {@code TieredBinlog} instead of the store read
 * across both as across local files: same bytes, same file changes.
 *
 * <h2>The view</h2>
 *
 * {@link #files()} is the archive's files older than the store's first file, followed by the
 * store's files. The two parts must join: the last archived file in the view must name the store's
 * first file (its ROTATE's next file, or the next sequence number after a STOP or a crash), and its
 * end GTID set must be contained in the store's first file's start set (equal unless the primary's
 * GTID state was set by hand). The same check joins each archived file to the next. Where a pair
 * does not join, the view starts after the gap: the older archived files are left out (logged once
 * per gap), so a reader never jumps over missing transactions.
 *
 * <p>Everything about the present (the readable boundary, the executed GTIDs, the store's failure,
 * waiting) is the store's; only an empty store (a relay bootstrapping from the archive) shows the
 * archive's end instead. {@link #purgedGtids()} is the oldest file's start set, archived or local.
 *
 * <h2>Opening</h2>
 *
 * {@link #open} opens the local file if the store holds it; otherwise, or if retention removed it
 * in between, the archive's cached copy, pinned while open. A copy not cached yet is fetched: an
 * open that cannot complete at once throws {@link ArchiveFetchPending}. Opening an archived file
 * also starts fetching the next {@code prefetchFiles} archived files, so that a reader crossing
 * them rarely waits.
 *
 * <p>Thread-safe (stateless over the thread-safe store and tier, but for a one-entry cache and the
 * last gap reported).
 */
public final class TieredBinlog implements BinlogSource {
  private static final Logger LOG = LoggerFactory.getLogger(TieredBinlog.class);

  /** Archived files fetched ahead of a reader entering an archived file. */
  public static final int DEFAULT_PREFETCH_FILES = 2;

  private final BinlogStore store;
  private final ArchiveTier tier;
  private final int prefetchFiles;
  private volatile FileMetadata lastArchivedHit;
  private volatile String lastGapReported;

  public TieredBinlog(BinlogStore store, ArchiveTier tier) {
    this(store, tier, DEFAULT_PREFETCH_FILES);
  }

  /**
   * @param prefetchFiles how many archived files after one being opened to fetch ahead (0: none)
   */
  public TieredBinlog(BinlogStore store, ArchiveTier tier, int prefetchFiles) {
    if (prefetchFiles < 0) {
      throw new IllegalArgumentException("prefetchFiles " + prefetchFiles + " is negative");
    }
    this.store = Objects.requireNonNull(store, "store");
    this.tier = Objects.requireNonNull(tier, "tier");
    this.prefetchFiles = prefetchFiles;
  }

  public BinlogStore store() {
    return store;
  }

  public ArchiveTier tier() {
    return tier;
  }

  @Override
  public GtidFlavor flavor() {
    return store.flavor();
  }

  @Override
  public int maxEventSize() {
    return store.maxEventSize();
  }

  @Override
  public Time time() {
    return store.time();
  }

  @Override
  public List<FileMetadata> files() {
    List<FileMetadata> local = store.files();
    List<FileMetadata> archived = archivedPart(local);
    if (archived.isEmpty()) {
      return local;
    }
    List<FileMetadata> all = new ArrayList<>(archived.size() + local.size());
    all.addAll(archived);
    all.addAll(local);
    return List.copyOf(all);
  }

  @Override
  public Optional<FileMetadata> file(String name) {
    Optional<FileMetadata> local = store.file(name);
    return local.isPresent() ? local : archivedFile(name);
  }

  @Override
  public Optional<String> nextFile(String name) {
    if (store.file(name).isPresent()) {
      try {
        return store.nextFile(name);
      } catch (NoSuchElementException removedJustNow) {
        // retention removed it: look it up in the archive
      }
    }
    List<FileMetadata> view = files();
    for (int i = 0; i < view.size(); i++) {
      if (view.get(i).name().equals(name)) {
        return i + 1 < view.size() ? Optional.of(view.get(i + 1).name()) : Optional.empty();
      }
    }
    throw new NoSuchElementException(name + " is neither stored locally nor archived");
  }

  /**
   * The store's readable length for a local file; an archived file's size (archived files are
   * complete).
   */
  @Override
  public long readableLength(String name) {
    FileMetadata hit = lastArchivedHit;
    if (hit != null && hit.name().equals(name)) {
      return hit.size(); // an archived file is closed: local or not, this is its length
    }
    try {
      return store.readableLength(name);
    } catch (NoSuchElementException notLocal) {
      FileMetadata archived =
          archivedFile(name)
              .orElseThrow(
                  () ->
                      new NoSuchElementException(name + " is neither stored locally nor archived"));
      lastArchivedHit = archived;
      return archived.size();
    }
  }

  @Override
  public Position readableEnd() {
    Position end = store.readableEnd();
    if (end != null) {
      return end;
    }
    List<FileMetadata> archived = archivedPart(List.of());
    if (archived.isEmpty()) {
      return null;
    }
    FileMetadata last = archived.get(archived.size() - 1);
    return new Position(last.name(), last.size());
  }

  /** The store's boundary: waiting for more is waiting for the store. */
  @Override
  public StoreWatch readable() {
    return store.readable();
  }

  @Override
  public GtidSet executedGtids() {
    if (store.readableEnd() == null) {
      List<FileMetadata> archived = archivedPart(List.of());
      if (!archived.isEmpty()) {
        return archived.get(archived.size() - 1).gtidsAtEnd();
      }
    }
    return store.executedGtids();
  }

  @Override
  public GtidSet purgedGtids() {
    List<FileMetadata> archived = archivedPart(store.files());
    return archived.isEmpty() ? store.purgedGtids() : archived.get(0).gtidsAtStart();
  }

  @Override
  public EventBoundaries boundaries() {
    return store.boundaries();
  }

  @Override
  public Optional<Throwable> failure() {
    return store.failure();
  }

  /**
   * The local file if stored, else the archive's cached copy (pinned until the result is closed).
   *
   * @throws ArchiveFetchPending if the file is archived but its copy is not cached yet (a fetch is
   *     started, or joined)
   * @throws NoSuchFileException if the file is neither stored nor archived (in the view)
   */
  @Override
  public OpenedFile open(String name) throws IOException {
    try {
      return store.open(name);
    } catch (NoSuchFileException notLocal) {
      // not stored, or removed by retention since the caller found it: try the archive
    }
    FileMetadata meta =
        archivedFile(name)
            .orElseThrow(
                () ->
                    new NoSuchFileException(
                        name, null, "neither stored locally nor archived (purged from both?)"));
    OpenedFile opened = openCached(meta);
    try {
      prefetchAfter(name);
    } catch (RuntimeException e) {
      // the archive changed under the view (a file deleted by archive retention): nothing to fetch
      LOG.debug("Prefetching after {} failed: {}", name, e.toString());
    }
    return opened;
  }

  private OpenedFile openCached(FileMetadata meta) throws IOException {
    String name = meta.name();
    tier.pin(name);
    boolean pinHandedOver = false;
    try {
      Path path = tier.cached(name).orElse(null);
      if (path == null) {
        CompletableFuture<Path> fetch = tier.fetch(name);
        if (!fetch.isDone() || fetch.isCompletedExceptionally()) {
          throw new ArchiveFetchPending(name, fetch);
        }
        path = fetch.join();
      }
      FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
      pinHandedOver = true; // from here OpenedFile unpins, also if it fails
      OpenedFile opened = OpenedFile.immutable(name, channel, path, () -> tier.unpin(name));
      try {
        long size = channel.size();
        if (size != meta.size()) {
          throw new StoreException(
              "the archive's cached copy of "
                  + name
                  + " at "
                  + path
                  + " has "
                  + size
                  + " bytes but the archive lists "
                  + meta.size()
                  + ": the cache is damaged; remove the copy so that it is fetched again");
        }
      } catch (IOException | RuntimeException e) {
        try {
          opened.close();
        } catch (IOException closing) {
          e.addSuppressed(closing);
        }
        throw e;
      }
      return opened;
    } finally {
      if (!pinHandedOver) {
        tier.unpin(name);
      }
    }
  }

  /** Starts fetching the archived files after {@code name} that are not cached yet. */
  private void prefetchAfter(String name) {
    if (prefetchFiles == 0) {
      return;
    }
    List<FileMetadata> archived = archivedPart(store.files());
    int at = indexOf(archived, name);
    if (at < 0) {
      return;
    }
    for (int i = at + 1; i < archived.size() && i <= at + prefetchFiles; i++) {
      String next = archived.get(i).name();
      if (tier.cached(next).isEmpty()) {
        tier.fetch(next)
            .whenComplete(
                (path, failure) -> {
                  if (failure != null) {
                    LOG.debug(
                        "Prefetching {} from the archive failed: {}", next, failure.toString());
                  }
                });
      }
    }
  }

  private Optional<FileMetadata> archivedFile(String name) {
    List<FileMetadata> archived = archivedPart(store.files());
    int at = indexOf(archived, name);
    return at < 0 ? Optional.empty() : Optional.of(archived.get(at));
  }

  private static int indexOf(List<FileMetadata> files, String name) {
    for (int i = 0; i < files.size(); i++) {
      if (files.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The archived files older than {@code local}'s first file that join it without a gap, oldest
   * first; all of them, back to the first gap, if {@code local} is empty.
   */
  private List<FileMetadata> archivedPart(List<FileMetadata> local) {
    List<FileMetadata> archived = tier.files();
    if (archived.isEmpty()) {
      return List.of();
    }
    FileMetadata next = local.isEmpty() ? null : local.get(0);
    long limit = next == null ? Long.MAX_VALUE : BinlogFileName.sequence(next.name());
    int end = 0;
    while (end < archived.size() && BinlogFileName.sequence(archived.get(end).name()) < limit) {
      end++;
    }
    int start = end;
    while (start > 0) {
      FileMetadata previous = archived.get(start - 1);
      if (next != null && !joins(previous, next)) {
        reportGap(previous, next);
        break;
      }
      next = previous;
      start--;
    }
    return archived.subList(start, end);
  }

  /**
   * Whether {@code next} continues {@code previous}: the same flavour, {@code previous} closed,
   * {@code next} the file its ROTATE names (or the next number after a STOP or a crash), and GTIDs
   * that carry on (see the class comment). The archive's catalog uses the same rule.
   */
  public static boolean joins(FileMetadata previous, FileMetadata next) {
    if (previous.flavor() != next.flavor() || !previous.closed()) {
      return false;
    }
    boolean named =
        previous.ending() == FileMetadata.Ending.ROTATE
            ? next.name().equals(previous.nextFile())
            : next.name().equals(BinlogFileName.next(previous.name()));
    return named && next.gtidsAtStart().containsAll(previous.gtidsAtEnd());
  }

  private void reportGap(FileMetadata previous, FileMetadata next) {
    String gap = previous.name() + " -> " + next.name();
    if (gap.equals(lastGapReported)) {
      return;
    }
    lastGapReported = gap;
    LOG.warn(
        "The archive's {} (ending {}{}, GTIDs at its end {}) is not followed by {} (GTIDs at its"
            + " start {}): readers see the binlog from {} on only; the archived files before the gap"
            + " are not served. Check that the archive and the data directory belong to the same"
            + " primary",
        previous.name(),
        previous.ending(),
        previous.nextFile() == null ? "" : " to " + previous.nextFile(),
        previous.gtidsAtEnd(),
        next.name(),
        next.gtidsAtStart(),
        next.name());
  }

  @Override
  public String toString() {
    return "TieredBinlog(" + store + " + " + tier + ")";
  }
}
