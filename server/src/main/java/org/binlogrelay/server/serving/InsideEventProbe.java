package org.binlogrelay.server.serving;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.OpenedFile;

/**
 * What MySQL and MariaDB make of a start position inside an event. Neither checks that a requested
 * position is an event boundary: they send the artificial ROTATE and the FORMAT_DESCRIPTION, then
 * read an event header from there and fail on what they find (MySQL's {@code
 * Binlog_event_data_istream}, MariaDB's {@code Log_event::read_log_event}), with {@code
 * max_allowed_packet} raised to 1 GiB for the dump:
 *
 * <ul>
 *   <li>fewer than 19 bytes left, or an event that would end past the readable end: {@link
 *       Outcome#TRUNCATED};
 *   <li>event_size below 19: {@link Outcome#BOGUS};
 *   <li>event_size above 1 GiB: {@link Outcome#TOO_LARGE}.
 * </ul>
 *
 * Bytes that pass these checks a server would send as an event; the relay reports {@link
 * Outcome#BOGUS} instead. Stateless.
 */
final class InsideEventProbe {
  /** MAX_MAX_ALLOWED_PACKET, the dump's max_allowed_packet in both servers. */
  static final long MAX_EVENT_SIZE = 1L << 30;

  enum Outcome {
    BOGUS,
    TOO_LARGE,
    TRUNCATED
  }

  /**
   * @param outcome how the read fails
   * @param bytePosition how far the server's read got (the "last byte read")
   */
  record Result(Outcome outcome, long bytePosition) {}

  private InsideEventProbe() {}

  static Result probe(BinlogSource store, String file, long position) throws IOException {
    long readable = store.readableLength(file);
    ByteBuffer header = ByteBuffer.allocate(EventHeader.SIZE).order(ByteOrder.LITTLE_ENDIAN);
    try (OpenedFile opened = store.open(file)) {
      FileChannel channel = opened.channel();
      while (header.hasRemaining() && position + header.position() < readable) {
        header.limit((int) Math.min(EventHeader.SIZE, readable - position));
        if (channel.read(header, position + header.position()) < 0) {
          break;
        }
      }
    }
    if (header.position() < EventHeader.SIZE) {
      return new Result(Outcome.TRUNCATED, readable);
    }
    long size = header.getInt(EventHeader.EVENT_SIZE_OFFSET) & 0xffff_ffffL;
    long afterHeader = position + EventHeader.SIZE;
    if (size < EventHeader.SIZE) {
      return new Result(Outcome.BOGUS, afterHeader);
    }
    if (size > MAX_EVENT_SIZE) {
      return new Result(Outcome.TOO_LARGE, afterHeader);
    }
    if (position + size > readable) {
      return new Result(Outcome.TRUNCATED, readable);
    }
    return new Result(Outcome.BOGUS, position + size);
  }
}
