package org.binlogrelay.storage;

import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link RecoveryStrategy} of a directory that does not take writes (a full disk): the state is
 * found from reads alone and nothing on disk changes. Cuts and removals are logical (the state ends
 * at the last complete transaction; files to remove are left out of it); closes, in-use bits,
 * metadata, the index and leftover deletions are left for later; the tail's channel is opened
 * read-only. {@link BinlogStore#tryResume()} later recovers again in place ({@link
 * InPlaceRecovery}), which makes the same state physical. Not thread-safe (one recovery's).
 */
final class ReadOnlyRecovery implements RecoveryStrategy {
  /** Logs as the recovery it serves. */
  private static final Logger LOG = LoggerFactory.getLogger(StoreRecovery.class);

  private final StoreDirectory dir;
  private final BinlogFlavor flavor;
  private final StoreConfig config;

  ReadOnlyRecovery(StoreDirectory dir, BinlogFlavor flavor, StoreConfig config) {
    this.dir = dir;
    this.flavor = flavor;
    this.config = config;
  }

  /** Finds the same list of files and deletes nothing. */
  @Override
  public IndexRepair indexRepair() {
    return new IndexRepair(dir, false);
  }

  /** The metadata the in-place close would write; the file is left as it is. */
  @Override
  public FileMetadata close(String name, FileScan.Result result) {
    FileStats stats = result.stats();
    FileMetadata closed = stats.snapshot(flavor, true, result.boundary(), result.gtidsAtBoundary());
    LOG.info(
        "binlog store {}: {} ends at {} ({} ending); closing it waits until the store accepts writes",
        dir,
        name,
        result.boundary(),
        stats.ending());
    return closed;
  }

  /**
   * Opens the tail read-only; its bytes past the recovered end are cut when the store accepts
   * writes.
   */
  @Override
  public OpenFile reopen(String name, FileScan.Result result) throws IOException {
    FileTracker tracker =
        flavor.newTracker(result.boundary(), result.format(), result.gtidsAtBoundary());
    return new OpenFile(
        BinlogFile.openForReading(dir, name),
        tracker,
        result.stats(),
        result.boundary(),
        config.time().nanoseconds());
  }

  /** Leaves the file: it is out of the state, and removed when the store accepts writes. */
  @Override
  public void remove(String name) {}

  /** Leaves the index and the directory as they are. */
  @Override
  public void finish(String indexName, List<FileMetadata> files, boolean indexChanged) {}
}
