package org.binlogrelay.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link RecoveryStrategy} of a directory that takes writes: each cut, removal and close is
 * made on disk as recovery decides it, the tail is reopened for appending with a fresh checkpoint,
 * and the index and the directory are written and forced last. Not thread-safe (one recovery's).
 */
final class InPlaceRecovery implements RecoveryStrategy {
  /** Logs as the recovery it serves. */
  private static final Logger LOG = LoggerFactory.getLogger(StoreRecovery.class);

  private final StoreDirectory dir;
  private final BinlogFlavor flavor;
  private final StoreConfig config;

  InPlaceRecovery(StoreDirectory dir, BinlogFlavor flavor, StoreConfig config) {
    this.dir = dir;
    this.flavor = flavor;
    this.config = config;
  }

  @Override
  public IndexRepair indexRepair() {
    return new IndexRepair(dir, true);
  }

  /**
   * In-use flag per the file's ending (cleared after ROTATE or STOP, and, if the flavour's server
   * does so after a crash, for a file the primary abandoned: here one followed by a later file),
   * force, closed metadata.
   */
  @Override
  public FileMetadata close(String name, FileScan.Result result) throws IOException {
    FileStats stats = result.stats();
    FileMetadata closed = stats.snapshot(flavor, true, result.boundary(), result.gtidsAtBoundary());
    try (BinlogFile file = BinlogFile.open(dir, name)) {
      if (file.size() != result.boundary()) {
        file.truncate(result.boundary());
      }
      if (stats.ending() != FileMetadata.Ending.NONE || flavor.clearsInUseAfterCrash()) {
        file.setInUse(false);
      }
      file.force();
    }
    MetadataFile.write(dir, closed, flavor);
    LOG.info(
        "binlog store {}: {} closed at {} ({} ending)",
        dir,
        name,
        result.boundary(),
        stats.ending());
    return closed;
  }

  /** Opens the tail for appending at its recovered end, in use again, forced and checkpointed. */
  @Override
  public OpenFile reopen(String name, FileScan.Result result) throws IOException {
    BinlogFile file = BinlogFile.open(dir, name);
    try {
      if (file.size() != result.boundary()) {
        file.truncate(result.boundary());
      }
      file.setInUse(true); // open again, as the primary's file was at this point
      file.force();
      FileTracker tracker =
          flavor.newTracker(result.boundary(), result.format(), result.gtidsAtBoundary());
      OpenFile open =
          new OpenFile(
              file, tracker, result.stats(), result.boundary(), config.time().nanoseconds());
      MetadataFile.write(dir, open.checkpoint(flavor), flavor);
      return open;
    } catch (IOException | RuntimeException e) {
      file.close();
      throw e;
    }
  }

  @Override
  public void remove(String name) throws IOException {
    dir.delete(name);
    dir.delete(MetadataFile.nameFor(name));
  }

  @Override
  public void finish(String indexName, List<FileMetadata> files, boolean indexChanged)
      throws IOException {
    if (files.isEmpty() && indexName != null) {
      dir.delete(indexName); // an empty store takes the name of its first file's index
    } else if (indexChanged && indexName != null) {
      List<String> kept = new ArrayList<>();
      for (FileMetadata f : files) {
        kept.add(f.name());
      }
      BinlogIndex.write(dir, indexName, kept);
    }
    dir.force();
  }
}
