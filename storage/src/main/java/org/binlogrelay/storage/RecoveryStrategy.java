package org.binlogrelay.storage;

import java.io.IOException;
import java.util.List;

/**
 * What {@link StoreRecovery} does to the disk once it has decided what each file is: the decisions
 * (where to cut, which files to remove, which file is the open tail) are the recovery's and the
 * same for both strategies; making them physical is the strategy's.
 *
 * <ul>
 *   <li>{@link InPlaceRecovery}: makes every decision physical as it is taken (cuts, removals,
 *       closes, the tail's checkpoint, the index), then forces the directory. Used by {@link
 *       BinlogStore#open} and {@link BinlogStore#tryResume()}.
 *   <li>{@link ReadOnlyRecovery}: changes nothing on disk (the directory does not take writes, e.g.
 *       a full disk); the state is the same, and a later in-place recovery makes it physical.
 * </ul>
 *
 * Implementations hold the directory, flavour and config of one recovery; not thread-safe.
 */
sealed interface RecoveryStrategy permits InPlaceRecovery, ReadOnlyRecovery {

  /**
   * The first step: index and directory made to agree ({@link IndexRepair}), deleting leftovers or
   * not.
   */
  IndexRepair indexRepair();

  /**
   * Closes a complete file at {@code result.boundary()} (cutting what follows it), and returns its
   * closed metadata.
   */
  FileMetadata close(String name, FileScan.Result result) throws IOException;

  /** Opens the store's tail at {@code result.boundary()}, its last transaction boundary. */
  OpenFile reopen(String name, FileScan.Result result) throws IOException;

  /** Removes a binlog file recovery does not keep, with its metadata. */
  void remove(String name) throws IOException;

  /**
   * Last: the index lists {@code files} (rewritten if {@code indexChanged}; deleted if {@code
   * files} is empty, an empty store takes the name of its first file's index), and the directory is
   * forced.
   *
   * @param indexName the index found, {@code null} if none
   */
  void finish(String indexName, List<FileMetadata> files, boolean indexChanged) throws IOException;
}
