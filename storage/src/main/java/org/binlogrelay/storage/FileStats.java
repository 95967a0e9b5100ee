package org.binlogrelay.storage;

import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.gtid.GtidSet;

/**
 * The running facts about one file that its {@link FileMetadata} records, kept as events go by (by
 * the writer for the open file, by a scan for a file read back). Values only change at transaction
 * boundaries: an event's time counts once the boundary after it is reached. Not thread-safe.
 */
final class FileStats {
  private final String name;
  private GtidSet gtidsAtStart;
  private String firstGtid;
  private String lastGtid;
  private long transactions;
  private long firstEventTime;
  private long lastEventTime;
  private long pendingEventTime;
  private FileMetadata.Ending ending = FileMetadata.Ending.NONE;
  private String nextFile;

  /**
   * Facts of a file read from its start, whose GTID set before its first transaction is {@code
   * gtidsBefore}.
   */
  FileStats(String name, GtidSet gtidsBefore) {
    this.name = name;
    this.gtidsAtStart = gtidsBefore.copy();
  }

  /** Facts continuing from a checkpoint. */
  static FileStats from(FileMetadata checkpoint) {
    FileStats s = new FileStats(checkpoint.name(), checkpoint.gtidsAtStart());
    s.firstGtid = checkpoint.firstGtid();
    s.lastGtid = checkpoint.lastGtid();
    s.transactions = checkpoint.transactions();
    s.firstEventTime = checkpoint.firstEventTime();
    s.lastEventTime = checkpoint.lastEventTime();
    s.pendingEventTime = checkpoint.lastEventTime();
    s.ending = checkpoint.ending();
    s.nextFile = checkpoint.nextFile();
    return s;
  }

  /**
   * Records an event the tracker accepted, and what it completed.
   *
   * @param format the format to parse a ROTATE with
   * @param headerGtids the set the event carries if it is the file's PREVIOUS_GTIDS or GTID_LIST,
   *     else null
   */
  void event(
      BinlogEvent event,
      FormatDescriptionEvent format,
      FileTracker.Completed completed,
      GtidSet headerGtids) {
    long time = event.header().timestamp();
    if (event.type() == EventType.FORMAT_DESCRIPTION && firstEventTime == 0) {
      firstEventTime = time;
    }
    pendingEventTime = time;
    if (headerGtids != null) {
      gtidsAtStart = headerGtids.copy();
    }
    if (completed != null) {
      transactions++;
      if (completed.text() != null) {
        if (firstGtid == null) {
          firstGtid = completed.text();
        }
        lastGtid = completed.text();
      }
    }
    if (event.type() == EventType.ROTATE) {
      ending = FileMetadata.Ending.ROTATE;
      nextFile = RotateEvent.parse(event, format).nextFile();
    } else if (event.type() == EventType.STOP) {
      ending = FileMetadata.Ending.STOP;
    }
  }

  /** The stream is at a transaction boundary after the last event recorded. */
  void atBoundary() {
    lastEventTime = pendingEventTime;
  }

  String name() {
    return name;
  }

  FileMetadata.Ending ending() {
    return ending;
  }

  String nextFile() {
    return nextFile;
  }

  String firstGtid() {
    return firstGtid;
  }

  String lastGtid() {
    return lastGtid;
  }

  long transactions() {
    return transactions;
  }

  long lastEventTime() {
    return lastEventTime;
  }

  GtidSet gtidsAtStart() {
    return gtidsAtStart.copy();
  }

  /**
   * The metadata of the file as of a boundary at {@code size} where the set is {@code gtidsAtEnd}.
   */
  FileMetadata snapshot(BinlogFlavor flavor, boolean closed, long size, GtidSet gtidsAtEnd) {
    return new FileMetadata(
        name,
        flavor.gtidFlavor(),
        closed,
        size,
        transactions,
        gtidsAtStart,
        gtidsAtEnd,
        firstGtid,
        lastGtid,
        firstEventTime,
        lastEventTime,
        ending,
        ending == FileMetadata.Ending.ROTATE ? nextFile : null);
  }
}
