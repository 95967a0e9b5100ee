package org.binlogrelay.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * The store's files in serving order with their latest metadata, in memory, and the index file that
 * persists the order. The in-memory list is authoritative: the index is rewritten whole from it, so
 * concurrent changes (a new file from the writer, removals by retention) cannot lose each other.
 *
 * <p>Thread-safe: the list is guarded by this object's monitor; index writes are serialised by a
 * separate lock so that a slow force never blocks readers of the list.
 */
final class FileCatalog {
  private final StoreDirectory dir;
  private final Object indexLock = new Object();
  private final List<FileMetadata> files = new ArrayList<>();
  private String indexName;

  FileCatalog(StoreDirectory dir, String indexName, List<FileMetadata> initial) {
    this.dir = dir;
    this.indexName = indexName;
    files.addAll(initial);
  }

  synchronized List<FileMetadata> list() {
    return List.copyOf(files);
  }

  synchronized List<String> names() {
    List<String> names = new ArrayList<>(files.size());
    for (FileMetadata f : files) {
      names.add(f.name());
    }
    return names;
  }

  synchronized Optional<FileMetadata> get(String name) {
    for (FileMetadata f : files) {
      if (f.name().equals(name)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  synchronized Optional<FileMetadata> last() {
    return files.isEmpty() ? Optional.empty() : Optional.of(files.get(files.size() - 1));
  }

  synchronized Optional<FileMetadata> first() {
    return files.isEmpty() ? Optional.empty() : Optional.of(files.get(0));
  }

  synchronized Optional<String> next(String name) {
    for (int i = 0; i < files.size(); i++) {
      if (files.get(i).name().equals(name)) {
        return i + 1 < files.size() ? Optional.of(files.get(i + 1).name()) : Optional.empty();
      }
    }
    throw new NoSuchElementException("the store holds no file " + name);
  }

  /** Appends a new (open) file. */
  synchronized void add(FileMetadata meta) {
    if (indexName == null) {
      indexName = BinlogIndex.nameFor(meta.name());
    }
    files.add(meta);
  }

  /** Replaces the metadata of a file already listed. */
  synchronized void update(FileMetadata meta) {
    for (int i = 0; i < files.size(); i++) {
      if (files.get(i).name().equals(meta.name())) {
        files.set(i, meta);
        return;
      }
    }
  }

  /**
   * Replaces the whole list (after the store recovered in place, {@link BinlogStore#tryResume()}).
   */
  synchronized void replaceAll(String newIndexName, List<FileMetadata> recovered) {
    files.clear();
    files.addAll(recovered);
    if (newIndexName != null) {
      indexName = newIndexName;
    }
  }

  /** Removes every file before {@code firstKept} from the list and returns them, oldest first. */
  synchronized List<FileMetadata> removeBefore(String firstKept) {
    int keep = -1;
    for (int i = 0; i < files.size(); i++) {
      if (files.get(i).name().equals(firstKept)) {
        keep = i;
        break;
      }
    }
    if (keep < 0) {
      throw new IllegalArgumentException(
          "cannot remove the files before "
              + firstKept
              + ": the store does not hold it (files: "
              + names()
              + ")");
    }
    List<FileMetadata> removed = new ArrayList<>(files.subList(0, keep));
    files.subList(0, keep).clear();
    return removed;
  }

  /** Rewrites the index from the current list, atomically and durably. */
  void writeIndex() throws IOException {
    synchronized (indexLock) {
      List<String> names;
      String name;
      synchronized (this) {
        names = names();
        name = indexName;
      }
      if (name != null) {
        BinlogIndex.write(dir, name, names);
      }
    }
  }
}
