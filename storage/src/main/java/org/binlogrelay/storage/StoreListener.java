package org.binlogrelay.storage;

import java.util.List;

/**
 * Notifications about the store's files, for readers, lookups and retention, and the store's own
 * measurements ({@link #transactionWritten}, {@link #forced}, {@link #appendRefused}) for the
 * server's metrics: the store knows no metrics library, the server maps these calls to meters.
 * Positions are watched through {@link BinlogStore#readable()} and {@link BinlogStore#durable()}
 * instead.
 *
 * <p>Called on the store's writer or syncer thread (named per method): implementations must be
 * quick and must not block or call back into the store's writing methods. An exception is logged
 * and ignored.
 */
public interface StoreListener {

  /** A new file was created and its first event written (writer thread). */
  default void fileCreated(String name) {}

  /**
   * A file is complete: its final force and its closed metadata are on disk (syncer thread). Comes
   * after {@link #fileCreated} of the next file when the primary rotated.
   */
  default void fileClosed(FileMetadata metadata) {}

  /**
   * Files were removed by retention, oldest first; the index no longer lists them (caller's
   * thread).
   */
  default void filesRemoved(List<String> names) {}

  /**
   * The store stopped accepting writes after an I/O error, {@link StoreCondition#DISK_FULL} or
   * {@link StoreCondition#IO_ERROR} (writer or syncer thread). Readers keep reading what is
   * readable.
   */
  default void failed(Throwable cause) {}

  /**
   * {@link BinlogStore#tryResume()} returned the store to accepting writes (the caller's thread).
   */
  default void resumed(StoreHealth health) {}

  /**
   * A transaction is complete in the file: its last event was written and {@code end} is a
   * transaction boundary (writer thread, once per transaction, before {@code end} is readable).
   * Called on the hot path: record and return.
   *
   * @param end the boundary after the transaction
   * @param eventTimestamp the header timestamp (epoch seconds) of the transaction's last event
   */
  default void transactionWritten(Position end, long eventTimestamp) {}

  /**
   * A force of the open file finished (syncer thread): its duration and how many transactions it
   * made durable together (group commit; 0 for a force that only covered events outside
   * transactions).
   */
  default void forced(long nanos, long transactions) {}

  /**
   * An append was refused because the store does not accept writes ({@code condition}); writer
   * thread.
   */
  default void appendRefused(StoreCondition condition) {}
}
