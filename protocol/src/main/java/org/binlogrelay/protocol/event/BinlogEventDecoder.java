package org.binlogrelay.protocol.event;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.CorruptEventException.Reason;

/**
 * Turns the bytes of one whole event into a checked {@link BinlogEvent}, tracking the
 * FORMAT_DESCRIPTION event that says whether events carry a CRC32. Used per event by {@link
 * BinlogFileParser} and, for a replication stream, per packet (the event follows the packet's 0x00
 * byte).
 *
 * <p>Checks, in order: at least a header; event_size within the limit, not below the header and
 * equal to the bytes given; for a FORMAT_DESCRIPTION event, a parsable body, which then becomes the
 * current format; and the CRC32 when the current format (or the FORMAT_DESCRIPTION event's own
 * algorithm byte) says events have one. Failures are {@link CorruptEventException}s whose offset is
 * the event's offset in the caller's array.
 *
 * <p>A FORMAT_DESCRIPTION event is held to more than MySQL checks, so that no single flipped bit
 * can turn verification off for it and every event after it: with algorithm OFF, its 4 bytes of
 * checksum room are verified too unless they are all zero (MySQL 9.7 and MariaDB 10.11 fill them
 * with a valid CRC32); and a server version from before checksums (5.6.1) is refused, because a
 * flipped bit in the version string would look the same. Such old servers are not supported.
 *
 * <p>Not thread-safe: one decoder per file or stream.
 */
public final class BinlogEventDecoder {
  private final int maxEventSize;
  private FormatDescriptionEvent format;
  private boolean formatSeen;

  /**
   * @param initial checksum algorithm for events before the first FORMAT_DESCRIPTION (a dump
   *     stream's fake ROTATE is checksummed as negotiated; a file starts with the
   *     FORMAT_DESCRIPTION itself)
   * @param maxEventSize largest accepted event, header and checksum included
   */
  public BinlogEventDecoder(ChecksumAlgorithm initial, int maxEventSize) {
    if (maxEventSize < EventHeader.SIZE) {
      throw new IllegalArgumentException(
          "maxEventSize " + maxEventSize + " is below the header size");
    }
    this.maxEventSize = maxEventSize;
    this.format = FormatDescriptionEvent.assumed(initial);
  }

  /** The current format: the last FORMAT_DESCRIPTION decoded, or the assumed one before that. */
  public FormatDescriptionEvent format() {
    return format;
  }

  /** True once a FORMAT_DESCRIPTION event has been decoded. */
  public boolean formatSeen() {
    return formatSeen;
  }

  /** Checks and wraps the event at {@code [offset, offset + length)}; see the class comment. */
  public BinlogEvent decode(byte[] buf, int offset, int length) {
    if (length < EventHeader.SIZE) {
      throw new CorruptEventException(
          Reason.TRUNCATED,
          offset,
          "event at offset "
              + offset
              + ": "
              + length
              + " bytes, shorter than the "
              + EventHeader.SIZE
              + "-byte header");
    }
    EventHeader header = EventHeader.parse(buf, offset);
    checkSize(header, offset, length);
    if (header.eventSize() != length) {
      throw new CorruptEventException(
          Reason.MALFORMED,
          offset,
          header.typeName()
              + " event at offset "
              + offset
              + " claims "
              + header.eventSize()
              + " bytes, "
              + length
              + " given");
    }
    boolean fde = header.type() == EventType.FORMAT_DESCRIPTION;
    FormatDescriptionEvent described = fde ? parseFormat(buf, offset, length) : format;
    boolean checksummed = described.eventsHaveChecksum();
    if (checksummed && length < EventHeader.SIZE + BinlogChecksum.SIZE) {
      throw new CorruptEventException(
          Reason.MALFORMED,
          offset,
          header.typeName()
              + " event at offset "
              + offset
              + ": "
              + length
              + " bytes cannot hold a header and a checksum");
    }
    BinlogEvent event = BinlogEvent.wrap(buf, offset, length, checksummed);
    if (checksummed && !event.checksumMatches()) {
      throw new CorruptEventException(
          Reason.CHECKSUM_MISMATCH,
          offset,
          String.format(
              "%s event at offset %d (%d bytes): stored CRC32 0x%08x, computed 0x%08x",
              header.typeName(),
              offset,
              length,
              event.storedChecksum(),
              BinlogChecksum.compute(buf, offset, length)));
    }
    if (fde) {
      checkFormatChecksum(buf, offset, length, described);
      format = described;
      formatSeen = true;
    }
    return event;
  }

  /** The extra FORMAT_DESCRIPTION checks described in the class comment. */
  private static void checkFormatChecksum(
      byte[] buf, int offset, int length, FormatDescriptionEvent described) {
    int end = offset + length;
    switch (described.checksumAlgorithm()) {
      case OFF -> {
        boolean roomIsZero =
            buf[end - 4] == 0 && buf[end - 3] == 0 && buf[end - 2] == 0 && buf[end - 1] == 0;
        if (!roomIsZero && !BinlogChecksum.verify(buf, offset, length)) {
          throw new CorruptEventException(
              Reason.CHECKSUM_MISMATCH,
              offset,
              String.format(
                  "FORMAT_DESCRIPTION event at offset %d: checksum algorithm OFF, but the stored CRC32 0x%08x does not "
                      + "match (computed 0x%08x)",
                  offset,
                  BinlogChecksum.stored(buf, offset, length),
                  BinlogChecksum.compute(buf, offset, length)));
        }
      }
      case UNDEFINED ->
          throw new CorruptEventException(
              Reason.MALFORMED,
              offset,
              "FORMAT_DESCRIPTION event at offset "
                  + offset
                  + ": server version '"
                  + described.serverVersion()
                  + "' predates binlog checksums (5.6.1); such "
                  + "servers are not supported, and a corrupt version string looks the same");
      default -> {
        // CRC32: verified with every other event
      }
    }
  }

  /** Checks event_size against the limit, the header size and the {@code available} bytes. */
  void checkSize(EventHeader header, int offset, long available) {
    long size = header.eventSize();
    if (size > maxEventSize) {
      throw new CorruptEventException(
          Reason.TOO_LARGE,
          offset,
          header.typeName()
              + " event at offset "
              + offset
              + " is "
              + size
              + " bytes, over the limit of "
              + maxEventSize);
    }
    if (size < EventHeader.SIZE) {
      throw new CorruptEventException(
          Reason.MALFORMED,
          offset,
          header.typeName()
              + " event at offset "
              + offset
              + " claims "
              + size
              + " bytes, less than its header");
    }
    if (size > available) {
      throw new CorruptEventException(
          Reason.TRUNCATED,
          offset,
          header.typeName()
              + " event at offset "
              + offset
              + " claims "
              + size
              + " bytes, only "
              + available
              + " present");
    }
  }

  private static FormatDescriptionEvent parseFormat(byte[] buf, int offset, int length) {
    try {
      return FormatDescriptionEvent.parse(buf, offset, length);
    } catch (ProtocolException e) {
      throw new CorruptEventException(Reason.MALFORMED, offset, e.getMessage(), e);
    }
  }
}
