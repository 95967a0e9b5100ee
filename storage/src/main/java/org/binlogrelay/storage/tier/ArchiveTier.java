package org.binlogrelay.storage.tier;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.binlogrelay.storage.FileMetadata;

/**
 * The archive as {@link TieredBinlog} reads it: the closed binlog files that were uploaded and
 * verified, and local copies of them fetched on demand into a cache. Implemented in {@code
 * archive/} over object storage (no SDK type crosses this interface); tests use a directory.
 *
 * <p>An archived file is read whole from its cached copy, with the same machinery as a local file
 * (zero copy included): {@link #fetch} downloads the whole file, checks it against the archive's
 * checksum, and only then completes. A cached copy is immutable.
 *
 * <p>Eviction: the cache may remove unpinned copies at any time (least recently used first). A
 * caller {@link #pin}s a file before asking for {@link #cached} and keeps the pin while it reads
 * the copy; an evicted copy that is still open stays readable (POSIX), but a pin keeps its space
 * accounted and its path valid.
 *
 * <p>Implementations are thread-safe; no method but the returned futures waits for the network.
 */
public interface ArchiveTier {
  /**
   * The archived and verified files, contiguous (each continues the previous one), oldest first.
   * Their metadata is final ({@link FileMetadata#closed()}).
   */
  List<FileMetadata> files();

  /** The metadata of one archived file, empty if it is not archived (and verified). */
  default Optional<FileMetadata> file(String name) {
    for (FileMetadata f : files()) {
      if (f.name().equals(name)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /** Whether {@code name} is archived and verified. */
  boolean archived(String name);

  /**
   * The path of a complete, verified local copy of {@code name}, if the cache holds one now. Pin
   * the file first ({@link #pin}) if the path is to stay valid.
   */
  Optional<Path> cached(String name);

  /**
   * Fetches {@code name} whole into the cache, unless it is cached already; completes with the
   * copy's path once it is complete and verified, exceptionally if the archive cannot give it
   * (unreachable, checksum mismatch, cache full: the exception says which). Concurrent calls for
   * one file share one download; a call after a failed download starts a new one. The returned
   * future may already be complete. Completed on the implementation's threads: callers hand work
   * on.
   *
   * @throws java.util.NoSuchElementException if {@code name} is not archived
   */
  CompletableFuture<Path> fetch(String name);

  /** Keeps {@code name}'s cached copy (present or future) from eviction until {@link #unpin}. */
  void pin(String name);

  /** Releases one {@link #pin}. */
  void unpin(String name);
}
