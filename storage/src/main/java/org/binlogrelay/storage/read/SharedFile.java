package org.binlogrelay.storage.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.OpenedFile;
import org.binlogrelay.storage.Position;

/**
 * One stored file open for reading, shared by a reader and the {@link EventBatch}es it hands out:
 * the channel closes when the last of them lets go, so a batch still queued in a socket's outbound
 * buffer stays readable after its reader moved on to the next file (or the file was removed by
 * retention).
 *
 * <p>The {@link OpenedFile} remembers the file's identity (device and inode on Linux) at open time,
 * to tell a file recreated under the same name from the one the reader has open.
 *
 * <p>Thread-safe: {@link #retain()} and {@link #release()} may come from any thread.
 */
final class SharedFile {
  private final OpenedFile opened;
  private final AtomicInteger references = new AtomicInteger(1);

  private SharedFile(OpenedFile opened) {
    this.opened = opened;
  }

  /** Opens {@code name} of {@code source}; the caller holds the one reference. */
  static SharedFile open(BinlogSource source, String name) throws IOException {
    return new SharedFile(source.open(name));
  }

  String name() {
    return opened.name();
  }

  FileChannel channel() {
    return opened.channel();
  }

  /**
   * Throws {@link BinlogReadException.Reason#REPLACED} if another file now has this file's name: it
   * was removed and created again since it was opened. (Removed and not recreated is fine:
   * retention removes files readers may keep reading.)
   */
  void checkNotReplaced(Position where, String readerName) throws IOException {
    if (opened.replaced()) {
      throw new BinlogReadException(
          BinlogReadException.Reason.REPLACED,
          where,
          name()
              + " was removed and created"
              + " again since "
              + readerName
              + " opened it: the store's file is not the one being read; position the"
              + " replica again");
    }
  }

  void retain() {
    int before = references.getAndUpdate(n -> n == 0 ? 0 : n + 1);
    if (before == 0) {
      throw new IllegalStateException(
          name() + " was already closed; a batch of it was used after release");
    }
  }

  void release() {
    int after = references.decrementAndGet();
    if (after == 0) {
      try {
        opened.close();
      } catch (IOException e) {
        throw new UncheckedIOException("closing " + name() + " failed", e);
      }
    } else if (after < 0) {
      throw new IllegalStateException(name() + " released more often than retained");
    }
  }

  @Override
  public String toString() {
    return name() + "(" + references.get() + " references)";
  }
}
