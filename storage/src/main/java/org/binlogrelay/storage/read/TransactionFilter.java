package org.binlogrelay.storage.read;

import org.binlogrelay.storage.FileMetadata;

/**
 * Which transactions a reader passes over instead of sending: for GTID auto-position, the ones the
 * replica already has. One implementation per flavour, because the rules differ (STYLE.md section
 * 4): {@link MysqlGtidFilter} skips every transaction whose GTID is in the replica's set, wherever
 * it is; {@link MariadbGtidFilter} skips, per replication domain, everything up to and including
 * the replica's position in that domain, then nothing more. Made by the start lookups; handed to
 * the reader in {@link ReaderOptions}.
 *
 * <p>Stateful and not thread-safe: owned by one reader.
 */
public interface TransactionFilter {

  /**
   * Whether {@code transaction} must be skipped. Called for every complete transaction in stream
   * order while the filter is in use for its file.
   *
   * @throws MariadbStartException if the stream shows the replica's position cannot be served
   *     (MariaDB)
   */
  boolean skip(StoredTransaction transaction);

  /**
   * The reader starts a file (at offset 4). Returns whether a transaction of it may be skipped;
   * false lets the reader send the file without parsing transactions. Must err on the side of true.
   *
   * @param file the file's metadata, {@code null} if the store does not know it; its end set is
   *     exact only once it is {@link FileMetadata#closed()}
   */
  boolean startFile(FileMetadata file);

  /** Whether a transaction still to come (after those passed to {@link #skip}) may be skipped. */
  boolean mayMatch();

  /**
   * An independent copy in the same state (for a dry run such as finding the first transaction to
   * send).
   */
  TransactionFilter copy();
}
