package org.binlogrelay.storage.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.tier.ArchiveTier;

/**
 * Test side: an {@link ArchiveTier} over two directories, {@code archive/} (the "archived" files,
 * as copied in by {@link #add}) and {@code cache/} (the fetched copies), with a fetch the test
 * controls ({@link Fetch}): at once, held until {@link #completeFetch} or {@link #failFetch}, or
 * failing. Records every download it starts ({@link #downloads()}) and counts pins, so that tests
 * can check prefetching and that open copies are pinned. Thread-safe.
 */
public final class DirectoryArchiveTier implements ArchiveTier {
  /** How {@link #fetch} behaves for a file not cached yet. */
  public enum Fetch {
    /** Copies the file into the cache and returns a completed future. */
    IMMEDIATE,
    /** Returns a future completed only by {@link #completeFetch} or {@link #failFetch}. */
    DELAYED,
    /** Returns a future failed with an {@link IOException}. */
    FAILING
  }

  private final Path archive;
  private final Path cache;
  private final Map<String, FileMetadata> files = new LinkedHashMap<>();
  private final Map<String, CompletableFuture<Path>> inFlight = new HashMap<>();
  private final Map<String, Integer> pins = new HashMap<>();
  private final List<String> downloads = new ArrayList<>();
  private Fetch mode = Fetch.IMMEDIATE;

  /** An empty archive in {@code root/archive}, caching in {@code root/cache}. */
  public DirectoryArchiveTier(Path root) throws IOException {
    this.archive = Files.createDirectories(root.resolve("archive"));
    this.cache = Files.createDirectories(root.resolve("cache"));
  }

  /**
   * An archive holding copies of {@code names}, closed files of {@code store}, with the store's
   * metadata of them (as an uploader would archive them).
   */
  public static DirectoryArchiveTier of(Path root, BinlogStore store, List<String> names)
      throws IOException {
    DirectoryArchiveTier tier = new DirectoryArchiveTier(root);
    for (String name : names) {
      FileMetadata meta =
          store
              .file(name)
              .orElseThrow(() -> new IllegalArgumentException(store + " holds no " + name));
      if (!meta.closed()) {
        throw new IllegalArgumentException(name + " is not closed; only closed files are archived");
      }
      tier.add(meta, store.directory().resolve(name));
    }
    return tier;
  }

  /** Archives {@code file} as {@code meta.name()} (appended: the newest archived file). */
  public void add(FileMetadata meta, Path file) throws IOException {
    Files.copy(file, archive.resolve(meta.name()), StandardCopyOption.REPLACE_EXISTING);
    synchronized (this) {
      files.put(meta.name(), meta);
    }
  }

  /** How later fetches of files not cached behave. */
  public synchronized void fetchMode(Fetch mode) {
    this.mode = mode;
  }

  /** Completes a {@link Fetch#DELAYED} fetch of {@code name}: copies it into the cache. */
  public void completeFetch(String name) throws IOException {
    CompletableFuture<Path> future;
    Path copy;
    synchronized (this) {
      future = inFlight.remove(name);
      if (future == null) {
        throw new IllegalStateException("no fetch of " + name + " is pending");
      }
      copy = copyToCache(name);
    }
    future.complete(copy);
  }

  /** Fails a {@link Fetch#DELAYED} fetch of {@code name} with {@code failure}. */
  public void failFetch(String name, Exception failure) {
    CompletableFuture<Path> future;
    synchronized (this) {
      future = inFlight.remove(name);
      if (future == null) {
        throw new IllegalStateException("no fetch of " + name + " is pending");
      }
    }
    future.completeExceptionally(failure);
  }

  /** Whether a fetch of {@code name} is pending ({@link Fetch#DELAYED}). */
  public synchronized boolean fetchPending(String name) {
    return inFlight.containsKey(name);
  }

  /**
   * Removes {@code name}'s cached copy unless it is pinned, as a cache making room would.
   *
   * @return whether a copy was removed
   */
  public synchronized boolean evict(String name) throws IOException {
    if (pins.getOrDefault(name, 0) > 0) {
      return false;
    }
    return Files.deleteIfExists(cache.resolve(name));
  }

  /** How many pins {@code name} has now. */
  public synchronized int pins(String name) {
    return pins.getOrDefault(name, 0);
  }

  /** The downloads started, oldest first, one entry per download (not per {@link #fetch} call). */
  public synchronized List<String> downloads() {
    return List.copyOf(downloads);
  }

  @Override
  public synchronized List<FileMetadata> files() {
    return List.copyOf(files.values());
  }

  @Override
  public synchronized boolean archived(String name) {
    return files.containsKey(name);
  }

  @Override
  public synchronized Optional<Path> cached(String name) {
    Path copy = cache.resolve(name);
    return files.containsKey(name) && Files.exists(copy) ? Optional.of(copy) : Optional.empty();
  }

  @Override
  public synchronized CompletableFuture<Path> fetch(String name) {
    if (!files.containsKey(name)) {
      throw new NoSuchElementException(name + " is not archived");
    }
    Optional<Path> cached = cached(name);
    if (cached.isPresent()) {
      return CompletableFuture.completedFuture(cached.get());
    }
    CompletableFuture<Path> running = inFlight.get(name);
    if (running != null) {
      return running;
    }
    downloads.add(name);
    switch (mode) {
      case IMMEDIATE:
        try {
          return CompletableFuture.completedFuture(copyToCache(name));
        } catch (IOException e) {
          return CompletableFuture.failedFuture(e);
        }
      case DELAYED:
        CompletableFuture<Path> future = new CompletableFuture<>();
        inFlight.put(name, future);
        return future;
      case FAILING:
      default:
        return CompletableFuture.failedFuture(
            new IOException("the test archive refuses to give " + name + " (fetch mode FAILING)"));
    }
  }

  @Override
  public synchronized void pin(String name) {
    pins.merge(name, 1, Integer::sum);
  }

  @Override
  public synchronized void unpin(String name) {
    int left = pins.getOrDefault(name, 0) - 1;
    if (left < 0) {
      throw new IllegalStateException(name + " unpinned more often than pinned");
    }
    if (left == 0) {
      pins.remove(name);
    } else {
      pins.put(name, left);
    }
  }

  private Path copyToCache(String name) throws IOException {
    Path partial = cache.resolve(name + ".partial");
    Path copy = cache.resolve(name);
    Files.copy(archive.resolve(name), partial, StandardCopyOption.REPLACE_EXISTING);
    Files.move(partial, copy, StandardCopyOption.ATOMIC_MOVE);
    return copy;
  }

  @Override
  public String toString() {
    return "DirectoryArchiveTier(" + archive.getParent() + ")";
  }
}
