package org.binlogrelay.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A binlog file open for reading, with the identity of the file opened: a read-only channel, and,
 * for a file that lives under a name that may be removed and created again (a local store's file),
 * the directory entry to compare with ({@link #replaced()}). An archived file's cached copy is
 * immutable (checked against the archive's checksum when fetched), so it has no such entry.
 *
 * <p>{@link #close()} closes the channel and lets go of whatever kept the file (an archive cache
 * pin), once. Thread-safe.
 */
public final class OpenedFile implements Closeable {
  private final String name;
  private final FileChannel channel;
  private final Path entry;
  private final Object fileKey;
  private final Object identity;
  private final Runnable onClose;
  private final AtomicBoolean closed = new AtomicBoolean();

  private OpenedFile(
      String name,
      FileChannel channel,
      Path entry,
      BasicFileAttributes attributes,
      Runnable onClose) {
    this.name = name;
    this.channel = channel;
    this.entry = entry;
    this.fileKey = attributes.fileKey();
    this.identity = identityOf(attributes);
    this.onClose = onClose;
  }

  /**
   * A file of a local store: {@code entry} is its name in the store's directory, read for the
   * identity now (the caller opened {@code channel} on it just before) and again by {@link
   * #replaced()}. Closes {@code channel} if the entry cannot be read.
   */
  public static OpenedFile local(String name, FileChannel channel, Path entry) throws IOException {
    try {
      return new OpenedFile(name, channel, entry, attributes(entry), () -> {});
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * An immutable copy (an archived file's cached copy at {@code path}); {@code onClose} runs once
   * after the channel is closed (e.g. unpins the copy). Closes {@code channel} and runs {@code
   * onClose} if {@code path} cannot be read.
   */
  public static OpenedFile immutable(String name, FileChannel channel, Path path, Runnable onClose)
      throws IOException {
    Objects.requireNonNull(onClose, "onClose");
    try {
      return new OpenedFile(name, channel, null, attributes(path), onClose);
    } catch (IOException | RuntimeException e) {
      try {
        channel.close();
      } finally {
        onClose.run();
      }
      throw e;
    }
  }

  public String name() {
    return name;
  }

  public FileChannel channel() {
    return channel;
  }

  /**
   * Identifies the file opened: its {@link BasicFileAttributes#fileKey()} (device and inode on
   * Linux), or its creation time on file systems without file keys.
   */
  public Object identity() {
    return identity;
  }

  /** The file's {@link BasicFileAttributes#fileKey()}, {@code null} if the file system has none. */
  public Object fileKey() {
    return fileKey;
  }

  /**
   * True if the file's name now refers to the file opened; false if it was removed, or removed and
   * created again. Always true for an immutable copy.
   */
  public boolean stillStored() throws IOException {
    if (entry == null) {
      return true;
    }
    try {
      return Objects.equals(identity, identityOf(attributes(entry)));
    } catch (NoSuchFileException gone) {
      return false;
    }
  }

  /**
   * True if another file now has this file's name: it was removed and created again since it was
   * opened. (Removed and not recreated is not replaced: retention removes files readers may keep
   * reading.) Always false for an immutable copy.
   */
  public boolean replaced() throws IOException {
    return entry != null && !stillStored() && Files.exists(entry);
  }

  /** Closes the channel, then lets go of the file. Idempotent. */
  @Override
  public void close() throws IOException {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      channel.close();
    } finally {
      onClose.run();
    }
  }

  private static BasicFileAttributes attributes(Path path) throws IOException {
    return Files.readAttributes(path, BasicFileAttributes.class);
  }

  private static Object identityOf(BasicFileAttributes attributes) {
    Object key = attributes.fileKey();
    // Without file keys (some file systems), the creation time is the best stand-in.
    return key != null ? key : attributes.creationTime();
  }

  @Override
  public String toString() {
    return name + (entry == null ? " (immutable copy)" : "");
  }
}
