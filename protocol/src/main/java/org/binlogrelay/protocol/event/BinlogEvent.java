package org.binlogrelay.protocol.event;

import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;

/**
 * One binlog event as bytes: a view of {@code [offset, offset + length)} of a caller's array
 * holding the whole event (19-byte {@link EventHeader}, body, and, when {@link #hasChecksum()}, the
 * 4-byte CRC32), plus the parsed header. Nothing is copied; the typed views ({@link QueryEvent},
 * {@link GtidEvent}, ...) are parsed from it on demand.
 *
 * <pre>
 *   offset                                      end - 4          end
 *   | header (19) | post-header + body           | CRC32 (opt.) |
 * </pre>
 *
 * <p>Immutable as long as the caller does not modify the array; then safe to share between threads.
 * {@link #buffer()} exposes the array itself (no copy): do not write to it.
 */
public final class BinlogEvent {
  private final EventHeader header;
  private final byte[] buffer;
  private final int offset;
  private final int length;
  private final boolean hasChecksum;

  private BinlogEvent(
      EventHeader header, byte[] buffer, int offset, int length, boolean hasChecksum) {
    this.header = header;
    this.buffer = buffer;
    this.offset = offset;
    this.length = length;
    this.hasChecksum = hasChecksum;
  }

  /**
   * Wraps the event at {@code [offset, offset + length)}. Checks that the header's event_size
   * equals {@code length} and that the event is long enough for its header (and checksum); does not
   * verify the checksum (see {@link #checksumMatches()}).
   *
   * @param hasChecksum whether a 4-byte CRC32 trails the event (known from the FORMAT_DESCRIPTION
   *     event)
   */
  public static BinlogEvent wrap(byte[] buffer, int offset, int length, boolean hasChecksum) {
    if (offset < 0 || length < 0 || offset > buffer.length - length) {
      throw new IllegalArgumentException(
          "slice [" + offset + ", +" + length + ") outside buffer of " + buffer.length + " bytes");
    }
    EventHeader header = EventHeader.parse(buffer, offset);
    int minimum = EventHeader.SIZE + (hasChecksum ? BinlogChecksum.SIZE : 0);
    if (header.eventSize() != length) {
      throw new ProtocolException(
          header.typeName()
              + " event at offset "
              + offset
              + ": header says "
              + header.eventSize()
              + " bytes, "
              + length
              + " bytes given");
    }
    if (length < minimum) {
      throw new ProtocolException(
          header.typeName()
              + " event at offset "
              + offset
              + ": "
              + length
              + " bytes is shorter than its header"
              + (hasChecksum ? " and checksum" : ""));
    }
    return new BinlogEvent(header, buffer, offset, length, hasChecksum);
  }

  /** Wraps a whole array as one event. */
  public static BinlogEvent wrap(byte[] event, boolean hasChecksum) {
    return wrap(event, 0, event.length, hasChecksum);
  }

  /**
   * Builds a new event from a header template and a body: event_size is set to the real size and,
   * when {@code withChecksum}, the CRC32 is appended. The template's other fields (log_pos
   * included) are kept.
   */
  public static BinlogEvent assemble(EventHeader template, byte[] body, boolean withChecksum) {
    int size = EventHeader.SIZE + body.length + (withChecksum ? BinlogChecksum.SIZE : 0);
    byte[] out = new byte[size];
    template.withEventSize(size).encodeTo(out, 0);
    System.arraycopy(body, 0, out, EventHeader.SIZE, body.length);
    if (withChecksum) {
      BinlogChecksum.patch(out, 0, size);
    }
    return wrap(out, 0, size, withChecksum);
  }

  public EventHeader header() {
    return header;
  }

  public EventType type() {
    return header.type();
  }

  /** The array holding the event (not a copy). */
  public byte[] buffer() {
    return buffer;
  }

  /**
   * Where the event starts in {@link #buffer()}: the file position when the buffer is a whole file.
   */
  public int offset() {
    return offset;
  }

  /** Total bytes, header and checksum included. */
  public int length() {
    return length;
  }

  /** One past the last byte in {@link #buffer()}. */
  public int end() {
    return offset + length;
  }

  public boolean hasChecksum() {
    return hasChecksum;
  }

  /** One past the last body byte: {@link #end()} minus the checksum, if any. */
  public int bodyEnd() {
    return end() - (hasChecksum ? BinlogChecksum.SIZE : 0);
  }

  /** The stored checksum; {@link IllegalStateException} if the event has none. */
  public long storedChecksum() {
    requireChecksum();
    return BinlogChecksum.stored(buffer, offset, length);
  }

  /** True if the stored CRC32 matches; {@link IllegalStateException} if the event has none. */
  public boolean checksumMatches() {
    requireChecksum();
    return BinlogChecksum.verify(buffer, offset, length);
  }

  private void requireChecksum() {
    if (!hasChecksum) {
      throw new IllegalStateException(
          header.typeName() + " event at offset " + offset + " has no checksum");
    }
  }

  /** A copy of the event's bytes. */
  public byte[] toByteArray() {
    return Arrays.copyOfRange(buffer, offset, offset + length);
  }

  @Override
  public String toString() {
    return header.typeName()
        + "@"
        + offset
        + "("
        + length
        + " bytes, log_pos "
        + header.logPos()
        + (hasChecksum ? ", crc" : "")
        + ")";
  }
}
