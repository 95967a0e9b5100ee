package org.binlogrelay.storage;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.HeartbeatEvent;
import org.binlogrelay.protocol.event.HeartbeatV2Event;
import org.binlogrelay.protocol.event.RotateEvent;

/**
 * Where one connection's dump stream stands relative to the stored binlog, and what to do with each
 * event it brings. The primary's dump thread (MySQL {@code Binlog_sender}, MariaDB {@code
 * mysql_binlog_send}) sends, per file:
 *
 * <pre>
 *   ROTATE (artificial: flag 0x20, log_pos 0, timestamp 0) naming the file and the start position
 *   FORMAT_DESCRIPTION   from offset 4: the file's own (log_pos = its end, in-use flag cleared) - written;
 *                        mid-file: a copy with log_pos 0 - only used to decode, not written
 *   events ...           each with log_pos = its end offset (or 0 inside a MariaDB 11.4+ transaction) - written
 *                        where it starts
 *   ROTATE (real)        log_pos = its end - written; the file is complete, the next file follows from 4
 *   (or STOP, after which the primary restarted into the next file)
 * </pre>
 *
 * Inside a transaction, MariaDB 11.4+ (binlog_legacy_event_pos=OFF, its default) sends the events
 * between the GTID event and the commit with log_pos 0: each is written where the store ends, as
 * MariaDB's own replica places it by its length; the commit's log_pos then proves the transaction's
 * length.
 *
 * <p>Never written: HEARTBEAT and HEARTBEAT_V2 (their position is checked against the store's when
 * they name the current file), events flagged artificial (MariaDB's fake GTID_LIST and
 * BINLOG_CHECKPOINT) and any other event with log_pos 0 outside a transaction (e.g. MariaDB's
 * START_ENCRYPTION re-flagged as ignorable). Skipping is safe: a real event skipped by mistake
 * would show up as a gap at the next positioned event.
 *
 * <p>Every other event must start exactly where the stored binlog ends (its log_pos minus its
 * size): a gap or an overlap is a {@link ContinuityException}, as is an event where a file start is
 * expected, or a file other than the one the last ROTATE named (or, after a STOP or a primary
 * crash, the next sequence number). State changes only when an event is accepted. Not thread-safe:
 * the writer's.
 */
final class DumpStream {
  private static final FormatDescriptionEvent HEADER_ONLY =
      FormatDescriptionEvent.assumed(ChecksumAlgorithm.OFF);

  /** What the writer does with an event. */
  enum Action {
    /** Not written (made up by the primary for the dump). */
    SKIP,
    /** The FORMAT_DESCRIPTION of a new file: create {@link #file()} and write the event at 4. */
    START_FILE,
    /** Write the event at the end of the current file. */
    WRITE
  }

  private enum Phase {
    /** After {@link BinlogStore#startStream()}: the artificial ROTATE must come first. */
    AWAIT_ROTATE,
    /** After an artificial ROTATE: the FORMAT_DESCRIPTION must come. */
    AWAIT_FORMAT,
    /** Events of the current file. */
    IN_FILE,
    /**
     * A rejected event left the stream unusable until the next {@link BinlogStore#startStream()}.
     */
    FAILED
  }

  private Phase phase = Phase.AWAIT_ROTATE;
  private String file;
  private long offset;
  private FileMetadata.Ending ending;
  private boolean fileClosed;
  private String nextFile;
  private String startingFile;

  /**
   * @param file the last stored file, {@code null} for an empty store
   * @param offset where it ends (a transaction boundary)
   * @param closed whether that file is closed (nothing more may be written to it)
   * @param ending how it ended: ROTATE, STOP, or NONE (open, or closed because the primary moved
   *     on)
   * @param nextFile the only file that may start next: the one its ROTATE names (or the file
   *     recovery removed as empty); {@code null} to allow the next sequence number
   */
  DumpStream(
      String file, long offset, boolean closed, FileMetadata.Ending ending, String nextFile) {
    this.file = file;
    this.offset = offset;
    this.fileClosed = closed || ending != FileMetadata.Ending.NONE;
    this.ending = ending;
    this.nextFile = nextFile;
  }

  /** The file events are written to (after {@link Action#START_FILE}: the new one). */
  String file() {
    return file;
  }

  /** Where the next written event must start. */
  long offset() {
    return offset;
  }

  /**
   * Where the store expects the stream to continue, for messages and {@link ContinuityException}.
   */
  Position expected() {
    if (file == null || ending == FileMetadata.Ending.ROTATE) {
      return nextFile == null ? null : Position.startOf(nextFile);
    }
    return new Position(file, offset);
  }

  void fail() {
    phase = Phase.FAILED;
  }

  /**
   * Decides what to do with {@code event} and moves the stream past it.
   *
   * @param atBoundary whether everything written so far ends at a transaction boundary
   * @throws ContinuityException if the event does not continue the stored binlog; the stream then
   *     fails
   */
  Action accept(BinlogEvent event, boolean atBoundary) {
    if (phase == Phase.FAILED) {
      throw new IllegalStateException(
          "the dump stream failed on an earlier event; call startStream() and"
              + " reconnect from the position it returns");
    }
    try {
      return decide(event, atBoundary);
    } catch (ContinuityException | ProtocolException e) {
      phase = Phase.FAILED;
      throw e;
    }
  }

  private Action decide(BinlogEvent event, boolean atBoundary) {
    EventHeader h = event.header();
    EventType type = event.type();
    if (type == EventType.HEARTBEAT || type == EventType.HEARTBEAT_V2) {
      checkHeartbeat(event);
      return Action.SKIP;
    }
    if (type == EventType.ROTATE && h.hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F)) {
      artificialRotate(RotateEvent.parse(event), atBoundary);
      return Action.SKIP;
    }
    if (type == EventType.FORMAT_DESCRIPTION) {
      return format(event);
    }
    if (h.hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F) || h.logPos() == 0) {
      return unpositioned(event, atBoundary);
    }
    if (phase != Phase.IN_FILE || fileClosed) {
      throw error(h.typeName() + " event (log_pos " + h.logPos() + ") where " + awaited());
    }
    long end = offset + event.length();
    if (h.logPos() != Position.logPosOf(end)) {
      throw discontinuity(h, event.length());
    }
    if (type == EventType.ROTATE) {
      RotateEvent rotate = RotateEvent.parse(event);
      requireName(rotate.nextFile(), "ROTATE at " + new Position(file, offset));
      if (rotate.position() != BinlogFileName.FIRST_EVENT_OFFSET) {
        throw error(
            "ROTATE at "
                + new Position(file, offset)
                + " continues at "
                + rotate.position()
                + " of "
                + rotate.nextFile()
                + "; only rotations to offset 4 exist in a primary's binlog");
      }
      ending = FileMetadata.Ending.ROTATE;
      fileClosed = true;
      nextFile = rotate.nextFile();
    } else if (type == EventType.STOP) {
      ending = FileMetadata.Ending.STOP;
      fileClosed = true;
      nextFile = null;
    }
    offset = end;
    return Action.WRITE;
  }

  /**
   * An event with log_pos 0 or flagged artificial: inside a transaction of the current file, an
   * event of the file that MariaDB 11.4+ wrote without its position ({@link
   * EventHeader#positionFits}), written where the store ends; anything else was made up for the
   * dump and is skipped. A real event skipped or written by mistake shows up at the transaction's
   * next positioned event (its XID or COMMIT), whose log_pos must then be the store's end.
   */
  private Action unpositioned(BinlogEvent event, boolean atBoundary) {
    EventType type = event.type();
    if (!event.header().unpositioned()
        || atBoundary
        || phase != Phase.IN_FILE
        || fileClosed
        || type == EventType.ROTATE
        || type == EventType.STOP) {
      return Action.SKIP;
    }
    offset += event.length();
    return Action.WRITE;
  }

  private void artificialRotate(RotateEvent rotate, boolean atBoundary) {
    String name = requireName(rotate.nextFile(), "artificial ROTATE");
    long pos = rotate.position();
    Position named = new Position(name, pos);
    if (name.equals(file) && ending != FileMetadata.Ending.ROTATE) {
      if (pos != offset) {
        throw discontinuityAt(named);
      }
      if (!atBoundary) {
        throw error(
            "artificial ROTATE to "
                + named
                + " inside a transaction; call startStream() to reconnect");
      }
      phase = Phase.AWAIT_FORMAT;
      startingFile = null;
      return;
    }
    if (pos != BinlogFileName.FIRST_EVENT_OFFSET) {
      throw error(
          "the primary starts the dump at " + named + " but the store expects " + expectedText());
    }
    if (nextFile != null && !name.equals(nextFile)) {
      throw error("the primary starts file " + name + " but the store expects " + expectedText());
    }
    if (nextFile == null && file != null) {
      if (!BinlogFileName.base(name).equals(BinlogFileName.base(file))
          || BinlogFileName.sequence(name) != BinlogFileName.sequence(file) + 1) {
        throw error(
            "the primary starts file "
                + name
                + " after "
                + file
                + " without a ROTATE naming it; only "
                + BinlogFileName.next(file)
                + " may follow. If the primary's binlog was reset or renamed, this store"
                + " holds another history: start a new store");
      }
      if (!atBoundary) {
        throw error(
            "the primary starts file "
                + name
                + " while the transaction at the end of "
                + file
                + " is incomplete; call startStream() to reconnect");
      }
    }
    phase = Phase.AWAIT_FORMAT;
    startingFile = name;
  }

  private Action format(BinlogEvent event) {
    EventHeader h = event.header();
    if (h.logPos() == 0) {
      if (phase != Phase.AWAIT_FORMAT || startingFile != null) {
        throw error("FORMAT_DESCRIPTION with log_pos 0 (a mid-file dump start) where " + awaited());
      }
      phase = Phase.IN_FILE;
      return Action.SKIP;
    }
    String name = startingFile;
    if (name == null && phase != Phase.AWAIT_ROTATE && ending == FileMetadata.Ending.ROTATE) {
      name = nextFile; // the next file's FORMAT_DESCRIPTION right after a real ROTATE
    }
    if (name == null) {
      throw error("FORMAT_DESCRIPTION with log_pos " + h.logPos() + " where " + awaited());
    }
    long end = BinlogFileName.FIRST_EVENT_OFFSET + event.length();
    if (h.logPos() != end) {
      throw error(
          "FORMAT_DESCRIPTION of "
              + name
              + " has log_pos "
              + h.logPos()
              + ", but starting at offset 4 it"
              + " ends at "
              + end);
    }
    file = name;
    offset = end;
    ending = FileMetadata.Ending.NONE;
    fileClosed = false;
    nextFile = null;
    startingFile = null;
    phase = Phase.IN_FILE;
    return Action.START_FILE;
  }

  private void checkHeartbeat(BinlogEvent event) {
    if (phase != Phase.IN_FILE || file == null) {
      return;
    }
    String name;
    long pos;
    if (event.type() == EventType.HEARTBEAT) {
      HeartbeatEvent hb = HeartbeatEvent.parse(event, HEADER_ONLY);
      name = hb.logFile();
      pos = hb.position();
    } else {
      HeartbeatV2Event hb = HeartbeatV2Event.parse(event, HEADER_ONLY);
      name = hb.logFile();
      pos = hb.position();
    }
    name = name.substring(name.lastIndexOf('/') + 1);
    if (name.equals(file) && pos != offset) {
      throw error(
          "heartbeat says the primary is at "
              + new Position(name, pos)
              + " but the store ends at "
              + new Position(file, offset)
              + (pos > offset ? ": events were lost" : ": the primary's binlog went back"));
    }
  }

  private String requireName(String name, String where) {
    if (!BinlogFileName.isValid(name)) {
      throw error(where + " names '" + name + "', which is not a binlog file name (base.NNNNNN)");
    }
    return name;
  }

  private String awaited() {
    switch (phase) {
      case AWAIT_ROTATE:
        return "the stream must start with the primary's artificial ROTATE to " + expectedText();
      case AWAIT_FORMAT:
        return "the FORMAT_DESCRIPTION of "
            + (startingFile != null ? startingFile : file)
            + " must come";
      default:
        if (ending == FileMetadata.Ending.ROTATE) {
          return file + " ended with ROTATE: the start of " + nextFile + " must come";
        }
        return file
            + (ending == FileMetadata.Ending.STOP ? " ended with STOP" : " is closed")
            + ": an artificial ROTATE to the next file must come";
    }
  }

  private String expectedText() {
    Position p = expected();
    return p == null ? "any file at offset 4" : p.toString();
  }

  private ContinuityException discontinuity(EventHeader h, int length) {
    // log_pos is the end offset modulo 2^32: read it as the end nearest to where the store is
    long end = (offset & ~0xffff_ffffL) + h.logPos();
    if (end - offset > 1L << 31) {
      end -= 1L << 32;
    } else if (offset - end > 1L << 31) {
      end += 1L << 32;
    }
    long start = end - length;
    String what =
        start > offset
            ? "gap: " + (start - offset) + " bytes of " + file + " from " + offset + " are missing"
            : "overlap: the event repeats " + (offset - start) + " bytes already stored";
    return error(
        h.typeName()
            + " event with log_pos "
            + h.logPos()
            + " starts at "
            + start
            + " of "
            + file
            + ", but the store ends at "
            + offset
            + " ("
            + what
            + "); nothing was written");
  }

  private ContinuityException discontinuityAt(Position named) {
    return error(
        "the primary starts the dump at "
            + named
            + " but the store ends at "
            + new Position(file, offset)
            + (named.offset() > offset ? " (gap)" : " (overlap)")
            + "; reconnect from the position startStream() returns");
  }

  private ContinuityException error(String message) {
    return new ContinuityException(expected(), message);
  }
}
