package org.binlogrelay.storage.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;

/**
 * One stored file open for reading, shared by a reader and the {@link EventBatch}es it hands out:
 * the channel closes when the last of them lets go, so a batch still queued in a socket's outbound
 * buffer stays readable after its reader moved on to the next file (or the file was removed by
 * retention).
 *
 * <p>Also remembers the file's identity ({@link BasicFileAttributes#fileKey()}, device and inode on
 * Linux) at open time, to tell a file recreated under the same name from the one the reader has
 * open.
 *
 * <p>Thread-safe: {@link #retain()} and {@link #release()} may come from any thread.
 */
final class SharedFile {
  private final String name;
  private final FileChannel channel;
  private final Path path;
  private final Object identity;
  private final AtomicInteger references = new AtomicInteger(1);

  private SharedFile(String name, FileChannel channel, Path path, Object identity) {
    this.name = name;
    this.channel = channel;
    this.path = path;
    this.identity = identity;
  }

  /** Opens {@code name} of {@code store}; the caller holds the one reference. */
  static SharedFile open(BinlogStore store, String name) throws IOException {
    FileChannel channel = store.openFile(name);
    try {
      Path path = store.directory().resolve(name);
      return new SharedFile(name, channel, path, identityOf(path));
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  String name() {
    return name;
  }

  FileChannel channel() {
    return channel;
  }

  /**
   * True if the store's directory entry for the name is still the file this channel reads; false if
   * it was removed, or removed and created again.
   */
  boolean stillStored() throws IOException {
    try {
      return Objects.equals(identity, identityOf(path));
    } catch (NoSuchFileException gone) {
      return false;
    }
  }

  /**
   * Throws {@link BinlogReadException.Reason#REPLACED} if another file now has this file's name: it
   * was removed and created again since it was opened. (Removed and not recreated is fine:
   * retention removes files readers may keep reading.)
   */
  void checkNotReplaced(Position where, String readerName) throws IOException {
    if (!stillStored() && Files.exists(path)) {
      throw new BinlogReadException(
          BinlogReadException.Reason.REPLACED,
          where,
          name
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
          name + " was already closed; a batch of it was used after release");
    }
  }

  void release() {
    int after = references.decrementAndGet();
    if (after == 0) {
      try {
        channel.close();
      } catch (IOException e) {
        throw new UncheckedIOException("closing " + name + " failed", e);
      }
    } else if (after < 0) {
      throw new IllegalStateException(name + " released more often than retained");
    }
  }

  private static Object identityOf(Path path) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
    Object key = attributes.fileKey();
    // Without file keys (some file systems), the creation time is the best stand-in.
    return key != null ? key : attributes.creationTime();
  }

  @Override
  public String toString() {
    return name + "(" + references.get() + " references)";
  }
}
