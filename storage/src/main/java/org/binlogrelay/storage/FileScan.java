package org.binlogrelay.storage;

import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.BinlogFileParser;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.gtid.GtidSet;

/**
 * Reads a stored binlog file back, event by event, and stops at the first event that is not right:
 * the magic number, then for each event a complete 19-byte header, a size within limits and within
 * the file, the CRC32 (when the FORMAT_DESCRIPTION says events carry one), log_pos equal to the
 * event's end (or 0 inside a transaction, as MariaDB 11.4+ writes: {@link
 * EventHeader#positionFits}), a place in a transaction the flavour's tracker accepts, and nothing
 * after a ROTATE or STOP. Everything before the first problem is valid; the file's usable length is
 * the last transaction boundary before it.
 *
 * <p>A scan can start at a checkpoint (a transaction boundary with known GTID set and stats); the
 * file's FORMAT_DESCRIPTION is then read at offset 4 first to know how to decode. Not thread-safe;
 * one scan per call of {@link #run}.
 */
final class FileScan {
  private final BinlogFlavor flavor;
  private final int maxEventSize;

  FileScan(BinlogFlavor flavor, int maxEventSize) {
    this.flavor = flavor;
    this.maxEventSize = maxEventSize;
  }

  /**
   * The outcome of a scan.
   *
   * @param name the file
   * @param length bytes scanned up to (the file's length, or the limit given)
   * @param boundary the last transaction boundary before any problem: what the file may be cut to;
   *     0 if the magic number is bad or incomplete, 4 if the FORMAT_DESCRIPTION is
   * @param validEnd the end of the last event that passed every check
   * @param problemOffset where the first bad or incomplete event starts, -1 if none
   * @param problem what is wrong, {@code null} if nothing (an incomplete last transaction is a
   *     problem too)
   * @param events events that passed
   * @param stats the file's facts as of {@code boundary}
   * @param gtidsAtBoundary the GTID set at {@code boundary}
   * @param format the file's FORMAT_DESCRIPTION, {@code null} if it is bad
   * @param bytesRead bytes read from disk
   */
  record Result(
      String name,
      long length,
      long boundary,
      long validEnd,
      long problemOffset,
      String problem,
      long events,
      FileStats stats,
      GtidSet gtidsAtBoundary,
      FormatDescriptionEvent format,
      long bytesRead) {

    boolean clean() {
      return problem == null;
    }

    /** The file holds nothing worth keeping: no complete FORMAT_DESCRIPTION. */
    boolean empty() {
      return format == null;
    }
  }

  /**
   * Scans {@code [4, length)} of a file whose GTID set before its first transaction is {@code
   * gtidsBefore}.
   */
  Result fromStart(FileChannel channel, String name, long length, GtidSet gtidsBefore)
      throws IOException {
    return run(channel, name, length, null, new FileStats(name, gtidsBefore), gtidsBefore);
  }

  /** Scans {@code [checkpoint.size(), length)}, continuing from the checkpoint of an open file. */
  Result fromCheckpoint(FileChannel channel, long length, FileMetadata checkpoint)
      throws IOException {
    return run(
        channel,
        checkpoint.name(),
        length,
        checkpoint.size(),
        FileStats.from(checkpoint),
        checkpoint.gtidsAtEnd());
  }

  private Result run(
      FileChannel channel,
      String name,
      long length,
      Long checkpoint,
      FileStats stats,
      GtidSet gtids)
      throws IOException {
    FileWindow window = new FileWindow(channel, length);
    Scanning s = new Scanning(name, length, window, stats);
    if (!s.magic()) {
      return s.result(0, null, gtids);
    }
    BinlogEventDecoder decoder = new BinlogEventDecoder(ChecksumAlgorithm.OFF, maxEventSize);
    BinlogEvent fde = s.next(decoder, BinlogFileName.FIRST_EVENT_OFFSET, false);
    if (fde == null || fde.type() != EventType.FORMAT_DESCRIPTION) {
      if (fde != null) {
        s.problem(
            BinlogFileName.FIRST_EVENT_OFFSET,
            "first event is " + fde.header().typeName() + ", not FORMAT_DESCRIPTION");
      }
      return s.result(BinlogFileName.FIRST_EVENT_OFFSET, null, gtids);
    }
    FormatDescriptionEvent format = decoder.format();
    FileTracker tracker;
    long position;
    if (checkpoint == null) {
      tracker = flavor.newTracker(BinlogFileName.FIRST_EVENT_OFFSET, null, gtids);
      position = BinlogFileName.FIRST_EVENT_OFFSET;
      if (!s.feed(tracker, fde, position)) {
        return s.result(position, format, tracker.gtids());
      }
      position += fde.length();
    } else {
      tracker = flavor.newTracker(checkpoint, format, gtids);
      position = checkpoint;
      if (checkpoint > length) {
        s.problem(length, "file is shorter than its checkpoint at " + checkpoint);
        return s.result(length, format, tracker.gtids());
      }
    }
    while (position < length) {
      BinlogEvent event = s.next(decoder, position, !tracker.atBoundary());
      if (event == null || !s.feed(tracker, event, position)) {
        break;
      }
      position += event.length();
    }
    if (s.problem == null && !tracker.atBoundary()) {
      s.problem(
          tracker.lastBoundary(),
          "incomplete transaction: the file ends at "
              + position
              + " inside the transaction that starts at "
              + tracker.lastBoundary());
    }
    return s.result(tracker.lastBoundary(), format, tracker.gtids());
  }

  /** The state of one scan. */
  private final class Scanning {
    final String name;
    final long length;
    final FileWindow window;
    final FileStats stats;
    long validEnd;
    long events;
    long problemOffset = -1;
    String problem;

    Scanning(String name, long length, FileWindow window, FileStats stats) {
      this.name = name;
      this.length = length;
      this.window = window;
      this.stats = stats;
    }

    boolean magic() throws IOException {
      if (length < BinlogFileParser.MAGIC.length) {
        problem(0, "file of " + length + " bytes has no complete magic number");
        return false;
      }
      int at = window.load(0, BinlogFileParser.MAGIC.length);
      for (int i = 0; i < BinlogFileParser.MAGIC.length; i++) {
        if (window.buffer()[at + i] != BinlogFileParser.MAGIC[i]) {
          problem(0, "not a binlog file: the magic number is not fe 62 69 6e");
          return false;
        }
      }
      validEnd = BinlogFileParser.MAGIC.length;
      return true;
    }

    /**
     * The checked event at {@code position}, or null after recording why there is none.
     *
     * @param insideTransaction whether a transaction is open before the event (it may then be
     *     unpositioned)
     */
    BinlogEvent next(BinlogEventDecoder decoder, long position, boolean insideTransaction)
        throws IOException {
      long left = length - position;
      if (left < EventHeader.SIZE) {
        problem(position, "truncated event: " + left + " bytes left, shorter than a header");
        return null;
      }
      int at = window.load(position, EventHeader.SIZE);
      EventHeader header = EventHeader.parse(window.buffer(), at);
      long size = header.eventSize();
      if (size < EventHeader.SIZE || size > maxEventSize) {
        problem(
            position,
            header.typeName()
                + " event claims "
                + size
                + " bytes (allowed "
                + EventHeader.SIZE
                + ".."
                + maxEventSize
                + ")");
        return null;
      }
      if (size > left) {
        problem(
            position,
            "truncated event: "
                + header.typeName()
                + " claims "
                + size
                + " bytes, "
                + left
                + " left in the file");
        return null;
      }
      try {
        at = window.load(position, (int) size);
      } catch (EOFException e) {
        problem(position, "truncated event: " + e.getMessage());
        return null;
      }
      BinlogEvent event;
      try {
        event = decoder.decode(window.buffer(), at, (int) size);
      } catch (ProtocolException e) {
        // The decoder counts offsets in the read buffer; say where the event is in the file.
        problem(position, e.getMessage().replace("at offset " + at, "at offset " + position));
        return null;
      }
      if (!header.positionFits(position + size, insideTransaction)) {
        problem(
            position,
            header.typeName()
                + " event at "
                + position
                + " has log_pos "
                + header.logPos()
                + ", expected its end "
                + (position + size));
        return null;
      }
      events++;
      return event;
    }

    /**
     * Feeds a checked event to the tracker and the stats; false (after recording why) if it cannot
     * come here.
     */
    boolean feed(FileTracker tracker, BinlogEvent event, long position) {
      if (stats.ending() != FileMetadata.Ending.NONE) {
        problem(
            position,
            event.header().typeName() + " event after the file's " + stats.ending() + " event");
        return false;
      }
      FileTracker.Completed done;
      try {
        done = tracker.accept(event, position);
      } catch (ProtocolException | IllegalArgumentException e) {
        problem(position, e.getMessage());
        return false;
      }
      stats.event(event, tracker.format(), done, tracker.lastHeaderGtids());
      validEnd = position + event.length();
      if (tracker.atBoundary()) {
        stats.atBoundary();
      }
      return true;
    }

    void problem(long offset, String what) {
      if (problem == null) {
        problemOffset = offset;
        problem = what;
      }
    }

    Result result(long boundary, FormatDescriptionEvent format, GtidSet gtidsAtBoundary) {
      long valid = format == null ? Math.min(validEnd, boundary) : validEnd;
      return new Result(
          name,
          length,
          boundary,
          valid,
          problemOffset,
          problem,
          events,
          stats,
          gtidsAtBoundary.copy(),
          format,
          window.bytesRead());
    }
  }
}
