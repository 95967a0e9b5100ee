package org.binlogrelay.storage.read;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.CorruptEventException;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReadException.Reason;

/**
 * Walks the events of one stored binlog file, from an event boundary up to a limit (the file's
 * readable length), over a read-only {@link FileChannel}. A file is the magic number and then
 * events back to back, each starting with its 19-byte header whose event_size (offset 9) gives the
 * next event's offset and whose log_pos (offset 13) is, in a stored file, the event's own end.
 *
 * <p>{@link #peek()} reads and checks the next event's header only, so that walking a file costs
 * one read per window of small events and one small read per event larger than the window, whatever
 * the event sizes; {@link #next} reads (and CRC-checks) the whole event for callers that need its
 * body. Every header is checked before it is trusted: event_size at least the header and at most
 * the limit given, the event ending at or before the limit, and log_pos equal to the event's end
 * (modulo 2^32). A position inside an event therefore fails here with {@link Reason#CORRUPT}
 * instead of yielding garbage; a file shorter on disk than the limit fails with {@link
 * Reason#TRUNCATED}.
 *
 * <p>MariaDB 11.4+ writes the events inside a transaction with log_pos 0 ({@link
 * EventHeader#positionFits}). The cursor does not follow transactions, so it accepts log_pos 0 on
 * any event but the FORMAT_DESCRIPTION that it reached by walking or by a {@link #seek} (a start
 * the caller knows); the event at the start it was created with must carry its position, or be
 * reached by walking the file's headers from its start (a replica may ask for any event start, as
 * MariaDB serves it; the positions lookups find are transaction boundaries, where the GTID event is
 * positioned, and pay nothing).
 *
 * <p>Not thread-safe; the channel may be shared (positional reads only).
 */
public final class EventCursor {
  static final int WINDOW_SIZE = 64 << 10;

  /** Where a binlog file's first event (its FORMAT_DESCRIPTION) starts, after the magic number. */
  private static final long FIRST_EVENT_OFFSET = 4;

  private final String file;
  private final FileChannel channel;
  private final int maxEventSize;
  private long limit;
  private long position;

  /**
   * Allocated at the first read through it: a reader that hands out batches reads them into its
   * caller's buffer and never needs one, and a relay with 2,000 tailing replicas holds 2,000 or
   * more cursors (64 KiB each would be half of a 256 MiB heap).
   */
  private byte[] window = new byte[0];

  /** The file offset of {@code window[0]}, and how many bytes of the window hold file data. */
  private long windowStart;

  private int windowLength;
  private EventHeader peeked;

  /** Whether {@link #position()} is known to be an event start: reached by walking or by a seek. */
  private boolean knownStart;

  /**
   * @param file the file's name, for messages
   * @param channel open on the file
   * @param start an event boundary
   * @param limit where walking stops (the readable length); events must end at or before it
   * @param maxEventSize the largest event accepted (the store's {@code maxEventSize})
   */
  public EventCursor(String file, FileChannel channel, long start, long limit, int maxEventSize) {
    if (start < 0 || limit < start) {
      throw new IllegalArgumentException(file + ": cannot walk from " + start + " to " + limit);
    }
    this.file = file;
    this.channel = channel;
    this.position = start;
    this.limit = limit;
    this.maxEventSize = maxEventSize;
  }

  /** The offset of the next event. */
  public long position() {
    return position;
  }

  public long limit() {
    return limit;
  }

  /** Moves the limit (e.g. when more of the file became readable); never below the position. */
  public void limit(long newLimit) {
    if (newLimit < position) {
      throw new IllegalArgumentException(
          file + ": limit " + newLimit + " is before the cursor at " + position);
    }
    limit = newLimit;
  }

  /** True while an event starts before the limit. */
  public boolean hasNext() {
    return position < limit;
  }

  /** The checked header of the event at {@link #position()}; does not move. */
  public EventHeader peek() throws IOException {
    if (peeked != null) {
      return peeked;
    }
    long left = limit - position;
    if (left < EventHeader.SIZE) {
      throw corrupt(
          "only "
              + left
              + " bytes are left before the end at "
              + limit
              + ", fewer than an event header");
    }
    int at = load(position, EventHeader.SIZE);
    EventHeader header = EventHeader.parse(window, at);
    long size = header.eventSize();
    if (size < EventHeader.SIZE) {
      throw corrupt("event_size " + size + " is smaller than the event header");
    }
    if (size > maxEventSize) {
      throw corrupt("event_size " + size + " is over the limit of " + maxEventSize + " bytes");
    }
    long end = position + size;
    if (end > limit) {
      throw corrupt(
          header.typeName()
              + " event of "
              + size
              + " bytes would end at "
              + end
              + ", past the readable"
              + " end at "
              + limit);
    }
    if (!header.positionFits(end, knownStart && header.type() != EventType.FORMAT_DESCRIPTION)
        && !(header.unpositioned()
            && header.type() != EventType.FORMAT_DESCRIPTION
            && reachedByWalking())) {
      throw corrupt(
          header.typeName()
              + " event of "
              + size
              + " bytes has log_pos "
              + header.logPos()
              + ", but it would end at "
              + end);
    }
    peeked = header;
    return header;
  }

  /**
   * Whether the start the cursor was created with is an event start, found by walking the headers
   * from the file's first event: the only way to tell an unpositioned event (MariaDB 11.4+) there
   * from bytes inside an event. Reads every header of the file up to the start; only a start at
   * such an event pays for it.
   */
  private boolean reachedByWalking() throws IOException {
    if (knownStart) {
      return false;
    }
    EventCursor walk = new EventCursor(file, channel, FIRST_EVENT_OFFSET, position, maxEventSize);
    try {
      while (walk.hasNext()) {
        walk.skip();
      }
    } catch (BinlogReadException e) {
      return false; // the start is inside an event (or the file is damaged before it)
    }
    knownStart = walk.position() == position;
    return knownStart;
  }

  /** Moves past the event at {@link #position()} without reading its body. */
  public void skip() throws IOException {
    position += peek().eventSize();
    peeked = null;
    knownStart = true;
  }

  /**
   * Reads the whole event at {@link #position()}, checks it with {@code decoder} (which also
   * follows the file's FORMAT_DESCRIPTION and verifies CRC32s) and moves past it. The event is a
   * view of an internal buffer, valid until the next call.
   */
  public BinlogEvent next(BinlogEventDecoder decoder) throws IOException {
    EventHeader header = peek();
    int size = (int) header.eventSize();
    int at = load(position, size);
    BinlogEvent event;
    try {
      event = decoder.decode(window, at, size);
    } catch (CorruptEventException e) {
      throw new BinlogReadException(
          Reason.CORRUPT, here(), file + " at " + position + ": " + e.getMessage(), e);
    }
    position += size;
    peeked = null;
    knownStart = true;
    return event;
  }

  /**
   * Moves to {@code offset}, which the caller knows to be an event boundary at or before the limit.
   */
  public void seek(long offset) {
    if (offset < 0 || offset > limit) {
      throw new IllegalArgumentException(
          file + ": cannot seek to " + offset + " (limit " + limit + ")");
    }
    position = offset;
    peeked = null;
    knownStart = true;
  }

  /**
   * Whether {@link #position()} is known to be an event start (reached by walking or by a seek), so
   * that the event there may be unpositioned (MariaDB 11.4+); false at the start the cursor was
   * created with until it moves.
   */
  public boolean atKnownEventStart() {
    return knownStart;
  }

  /** Makes {@code [at, at + len)} available in the window and returns its offset there. */
  private int load(long at, int len) throws IOException {
    if (at >= windowStart && at + len <= windowStart + windowLength) {
      return (int) (at - windowStart);
    }
    if (len > WINDOW_SIZE) {
      window = new byte[len]; // one large event; the next small read goes back to a normal window
    } else if (window.length != WINDOW_SIZE) {
      window = new byte[WINDOW_SIZE];
    }
    int want = (int) Math.max(len, Math.min(window.length, limit - at));
    ByteBuffer buf = ByteBuffer.wrap(window, 0, want);
    while (buf.position() < len) {
      int n = channel.read(buf, at + buf.position());
      if (n < 0) {
        windowLength = 0;
        throw new BinlogReadException(
            Reason.TRUNCATED,
            here(),
            file
                + " ends at "
                + (at + buf.position())
                + " on disk, but "
                + limit
                + " bytes of it are readable: the file was truncated under the store."
                + " Reconnect the replica; if it persists, run the store's verification");
      }
    }
    windowStart = at;
    windowLength = buf.position();
    return 0;
  }

  private Position here() {
    return new Position(file, position);
  }

  private BinlogReadException corrupt(String what) {
    return new BinlogReadException(
        Reason.CORRUPT,
        here(),
        file
            + " at "
            + position
            + " is not an event boundary: "
            + what
            + ". The position is inside an event, or the file is damaged");
  }
}
