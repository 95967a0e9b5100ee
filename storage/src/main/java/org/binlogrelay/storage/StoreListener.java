package org.binlogrelay.storage;

import java.util.List;

/**
 * Notifications about the store's files, for readers, lookups and retention. Positions are watched through
 * {@link BinlogStore#readable()} and {@link BinlogStore#durable()} instead.
 *
 * <p>Called on the store's writer or syncer thread (named per method): implementations must be quick and
 * must not block or call back into the store's writing methods. An exception is logged and ignored.
 */
public interface StoreListener {

  /** A new file was created and its first event written (writer thread). */
  default void fileCreated(String name) {}

  /**
   * A file is complete: its final force and its closed metadata are on disk (syncer thread). Comes after
   * {@link #fileCreated} of the next file when the primary rotated.
   */
  default void fileClosed(FileMetadata metadata) {}

  /** Files were removed by retention, oldest first; the index no longer lists them (caller's thread). */
  default void filesRemoved(List<String> names) {}

  /**
   * The store stopped accepting writes after an I/O error, {@link StoreCondition#DISK_FULL} or {@link
   * StoreCondition#IO_ERROR} (writer or syncer thread). Readers keep reading what is readable.
   */
  default void failed(Throwable cause) {}

  /** {@link BinlogStore#tryResume()} returned the store to accepting writes (the caller's thread). */
  default void resumed(StoreHealth health) {}
}
