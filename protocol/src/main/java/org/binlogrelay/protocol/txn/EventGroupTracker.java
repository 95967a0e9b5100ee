package org.binlogrelay.protocol.txn;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;

/**
 * The bookkeeping both flavours' trackers share: where the next event must start, where the last
 * boundary was, the format description used to read bodies, and the rule that a tracker which
 * refused an event refuses everything after it. Subclasses hold their flavour's state machine and
 * implement {@link #step}.
 *
 * <p>Not thread-safe (see {@link TransactionBoundaries}).
 *
 * @param <G> the flavour's GTID type
 */
abstract class EventGroupTracker<G> implements TransactionBoundaries<G> {
  private final String flavorName;
  private long position;
  private long boundary;
  private boolean failed;

  /** The FORMAT_DESCRIPTION in force: given at construction, replaced by each one fed. */
  protected FormatDescriptionEvent format;

  EventGroupTracker(String flavorName, long start, FormatDescriptionEvent format) {
    if (start < 0) {
      throw new IllegalArgumentException("start position " + start + " is negative");
    }
    this.flavorName = flavorName;
    this.position = start;
    this.boundary = start;
    this.format = format;
  }

  @Override
  public final long lastBoundary() {
    return boundary;
  }

  @Override
  public final long position() {
    return position;
  }

  /** True once an event was refused; the tracker then accepts nothing more. */
  protected final boolean failed() {
    return failed;
  }

  @Override
  public final Transaction<G> accept(BinlogEvent event, long at) {
    if (failed) {
      throw new IllegalStateException(
          "transaction tracker failed earlier; the stream was malformed before " + at);
    }
    if (at != position) {
      throw new IllegalArgumentException(
          event.header().typeName()
              + " event fed at position "
              + at
              + ", the previous event ended at "
              + position);
    }
    position = at + event.length();
    try {
      return step(event, at);
    } catch (ProtocolException e) {
      failed = true;
      throw e;
    }
  }

  /**
   * Applies one event (already placed: {@link #position()} is its end); returns the group it
   * completed.
   */
  protected abstract Transaction<G> step(BinlogEvent event, long at);

  /**
   * Describes where the stream is, for error messages ("inside transaction X that starts at N").
   */
  protected abstract String where();

  /** An event that changes nothing: if the stream is at a boundary, the boundary moves past it. */
  protected final Transaction<G> passThrough() {
    if (atBoundary()) {
      boundary = position;
    }
    return null;
  }

  /** Closes the open group at the current position; the caller resets its own state to idle. */
  protected final Transaction<G> completeGroup(G gtid, Transaction.Ending ending) {
    Transaction<G> done = new Transaction<>(gtid, boundary, position, ending);
    boundary = position;
    return done;
  }

  /** Throws unless {@code state} is one of {@code allowed}. */
  @SafeVarargs
  protected final <S> void requireState(BinlogEvent event, long at, S state, S... allowed) {
    for (S s : allowed) {
      if (state == s) {
        return;
      }
    }
    throw error(event, at, "cannot come " + where());
  }

  protected final ProtocolException error(BinlogEvent event, long at, String what) {
    return new ProtocolException(
        flavorName
            + " binlog: "
            + event.header().typeName()
            + " event at position "
            + at
            + " "
            + what
            + "; the stream is malformed, not relaying past the last transaction boundary at "
            + boundary);
  }
}
