package org.binlogrelay.protocol.event;

import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;

/**
 * Opens a bounded reader over an event's body for the typed parsers. The reader spans from the
 * event's first byte to the end of its body (checksum excluded) and starts after the common header,
 * so every offset a {@link ProtocolException} reports is relative to the start of the event and no
 * read can reach the checksum or the next event.
 */
final class EventBody {
  private EventBody() {}

  /** A reader positioned at the post-header of {@code event}, after checking its type. */
  static ByteReader open(BinlogEvent event, FormatDescriptionEvent fde, EventType... expected) {
    requireType(event, expected);
    int headerLength = fde.commonHeaderLength();
    int bodyLength = event.bodyEnd() - event.offset();
    if (bodyLength < headerLength) {
      throw new ProtocolException(
          event.header().typeName()
              + " event at offset "
              + event.offset()
              + ": "
              + bodyLength
              + " bytes before the checksum, shorter than the "
              + headerLength
              + "-byte header");
    }
    ByteReader in = new ByteReader(event.buffer(), event.offset(), bodyLength);
    in.position(headerLength);
    return in;
  }

  static void requireType(BinlogEvent event, EventType... expected) {
    for (EventType t : expected) {
      if (event.type() == t) {
        return;
      }
    }
    throw new IllegalArgumentException(
        "expected a "
            + Arrays.toString(expected)
            + " event, got "
            + event.header().typeName()
            + " at offset "
            + event.offset());
  }

  /** Skips to the end of a post-header of {@code length} bytes that began at {@code start}. */
  static void skipTo(ByteReader in, int start, int length, String what) {
    int consumed = in.position() - start;
    if (consumed < length) {
      in.skip(length - consumed, what);
    }
  }

  /** Throws a {@link ProtocolException} naming the event and the offset in it. */
  static ProtocolException error(BinlogEvent event, ByteReader in, String message) {
    return new ProtocolException(
        event.header().typeName()
            + " event at offset "
            + event.offset()
            + ": "
            + message
            + " (at byte "
            + in.position()
            + " of the event)");
  }
}
