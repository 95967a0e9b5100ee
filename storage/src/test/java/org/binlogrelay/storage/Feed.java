package org.binlogrelay.storage;

import java.io.IOException;
import java.util.List;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;

/**
 * Test side: plays a {@link SourceBinlog}'s dump stream into a store the way the upstream
 * connection does: {@link #start()} asks {@link BinlogStore#startStream()} where to begin and
 * "connects" there; events are appended one by one; after a failure the feed stays at the event
 * that failed until it is started again. Remembers the durable and readable boundaries seen just
 * before the last append.
 */
final class Feed {
  private final BinlogStore store;
  private final SourceBinlog source;
  private List<BinlogEvent> stream = List.of();
  private int next;
  private Position durableBefore;
  private Position readableBefore;

  Feed(BinlogStore store, SourceBinlog source) {
    this.store = store;
    this.source = source;
  }

  /** (Re)connects: the dump stream from where the store says it ends. */
  Feed start() throws IOException {
    Position from = store.startStream().orElse(Position.startOf(source.files.get(0)));
    stream = source.dumpStream(from);
    next = 0;
    return this;
  }

  boolean done() {
    return next >= stream.size();
  }

  /** The event the next {@link #append()} sends. */
  BinlogEvent peek() {
    return stream.get(next);
  }

  /**
   * Length of the next event the store will write (not one the primary made up for the dump), 0 if
   * none.
   */
  int nextWrittenLength() {
    for (int i = next; i < stream.size(); i++) {
      BinlogEvent e = stream.get(i);
      // made up for the dump: artificial events and a mid-file FORMAT_DESCRIPTION (an unpositioned
      // event of the
      // stream is one inside a MariaDB 11.4+ transaction, which is written)
      boolean madeUp =
          e.header().hasFlag(EventHeader.LOG_EVENT_ARTIFICIAL_F)
              || (e.type() == EventType.FORMAT_DESCRIPTION && e.header().logPos() == 0);
      if (!madeUp) {
        return e.length();
      }
    }
    return 0;
  }

  /** Appends the next event; the feed moves on only if it was accepted. */
  Appended append() throws IOException {
    durableBefore = store.durableEnd();
    readableBefore = store.readableEnd();
    Appended a = store.append(stream.get(next));
    next++;
    return a;
  }

  /** Appends until the stream ends (returns null) or an append throws (returns what it threw). */
  Exception appendUntilFailure() {
    while (!done()) {
      try {
        append();
      } catch (IOException | RuntimeException e) {
        return e;
      }
    }
    return null;
  }

  /** The durable boundary just before the last append. */
  Position durableBefore() {
    return durableBefore;
  }

  /** The readable boundary just before the last append. */
  Position readableBefore() {
    return readableBefore;
  }
}
