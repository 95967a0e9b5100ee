package org.binlogrelay.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the oldest files of a store ({@link BinlogStore#removeFilesBefore}): only files that are
 * closed and durable, as a prefix; first the index is rewritten without them (atomically, forced),
 * then the files and their metadata are deleted and the directory forced, so a crash in between
 * leaves at most files older than the index's first, which recovery deletes. Readers that have a
 * removed file open keep reading it (POSIX).
 *
 * <p>Thread-safe: removals are serialised by the store's retention lock, which {@link
 * BinlogStore#tryResume()} holds too, so a removal never runs while the store recovers in place.
 */
final class FileRemoval {
  private static final Logger LOG = LoggerFactory.getLogger(FileRemoval.class);

  private final StoreDirectory dir;
  private final FileCatalog catalog;
  private final StoreWatch durable;
  private final Listeners listeners;
  private final Object lock;

  FileRemoval(
      StoreDirectory dir,
      FileCatalog catalog,
      StoreWatch durable,
      Listeners listeners,
      Object lock) {
    this.dir = dir;
    this.catalog = catalog;
    this.durable = durable;
    this.listeners = listeners;
    this.lock = lock;
  }

  /** See {@link BinlogStore#removeFilesBefore}. */
  List<String> removeBefore(String firstKept) throws IOException {
    synchronized (lock) {
      if (catalog.get(firstKept).isEmpty()) {
        throw new IllegalArgumentException(
            "cannot remove the files before "
                + firstKept
                + ": the store does not hold it (files: "
                + catalog.names()
                + ")");
      }
      Position d = durable.position();
      for (FileMetadata f : catalog.list()) {
        if (f.name().equals(firstKept)) {
          break;
        }
        if (!f.closed() || d == null || new Position(f.name(), f.size()).isAfter(d)) {
          throw new IllegalStateException(
              "cannot remove "
                  + f.name()
                  + " yet: it is not closed and durable"
                  + " (durable up to "
                  + d
                  + ")");
        }
      }
      List<FileMetadata> removed = catalog.removeBefore(firstKept);
      if (removed.isEmpty()) {
        return List.of();
      }
      catalog.writeIndex();
      List<String> names = new ArrayList<>();
      for (FileMetadata f : removed) {
        dir.delete(f.name());
        dir.delete(MetadataFile.nameFor(f.name()));
        names.add(f.name());
      }
      dir.force();
      LOG.info("binlog store {}: removed {} (now starts at {})", dir, names, firstKept);
      listeners.filesRemoved(names);
      return names;
    }
  }
}
