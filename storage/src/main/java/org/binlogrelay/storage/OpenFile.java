package org.binlogrelay.storage;

/**
 * The file being written: its channel, the tracker following its transactions and GTID set, the
 * facts its metadata will record, and when its last checkpoint was taken. The writer's; not
 * thread-safe.
 */
final class OpenFile {
  final BinlogFile file;
  final FileStats stats;
  FileTracker tracker;

  /** Offset of the last checkpoint handed to the syncer, -1 if none yet for this file. */
  long checkpointOffset;

  long checkpointNanos;

  OpenFile(
      BinlogFile file,
      FileTracker tracker,
      FileStats stats,
      long checkpointOffset,
      long checkpointNanos) {
    this.file = file;
    this.tracker = tracker;
    this.stats = stats;
    this.checkpointOffset = checkpointOffset;
    this.checkpointNanos = checkpointNanos;
  }

  String name() {
    return file.name();
  }

  /** The end of the last complete transaction (or header event). */
  Position boundary() {
    return new Position(file.name(), tracker.lastBoundary());
  }

  /** The metadata of this file as of its last boundary, open. */
  FileMetadata checkpoint(BinlogFlavor flavor) {
    return stats.snapshot(flavor, false, tracker.lastBoundary(), tracker.gtids());
  }
}
