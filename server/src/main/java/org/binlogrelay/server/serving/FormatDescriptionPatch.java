package org.binlogrelay.server.serving;

import io.netty.buffer.ByteBuf;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;

/**
 * The changes a dump thread makes to a file's FORMAT_DESCRIPTION before sending it (MySQL's {@code
 * send_format_description_event}, MariaDB's {@code send_format_descriptor_event}):
 *
 * <ul>
 *   <li>always: clear {@code LOG_EVENT_BINLOG_IN_USE_F} (flags, byte 17), set while the file is
 *       open. Its CRC32 is computed with that bit clear, so the stored checksum stays right;
 *   <li>{@link #CLEAR_LOG_POS}: log_pos (bytes 13..16) = 0, when the stream starts inside the file,
 *       so that the replica does not move its position;
 *   <li>{@link #CLEAR_CREATED}: the body's {@code created} timestamp (bytes 71..74) = 0, so that
 *       the replica keeps its temporary tables (the file's first transactions were skipped or
 *       already received);
 *   <li>after either of those, the CRC32 is computed again when the file is checksummed.
 * </ul>
 *
 * Stateless.
 */
final class FormatDescriptionPatch {
  static final int NONE = 0;
  static final int CLEAR_LOG_POS = 1;
  static final int CLEAR_CREATED = 2;

  /** Header, binlog_version (2), server_version (50). */
  private static final int CREATED_OFFSET = EventHeader.SIZE + 2 + 50;

  private FormatDescriptionPatch() {}

  /**
   * Patches the FORMAT_DESCRIPTION at {@code [index, index + size)} of {@code buf} in place and
   * returns the checksum algorithm it announces for its file.
   *
   * @throws DumpFailure if the bytes are not a FORMAT_DESCRIPTION (with the servers' wording)
   */
  static ChecksumAlgorithm apply(
      ByteBuf buf, int index, int size, int changes, String notFoundMessage) throws DumpFailure {
    byte[] event = new byte[size];
    buf.getBytes(index, event);
    ChecksumAlgorithm alg = apply(event, changes, notFoundMessage);
    buf.setBytes(index, event);
    return alg;
  }

  /** As {@link #apply(ByteBuf, int, int, int, String)}, on a whole event in an array. */
  static ChecksumAlgorithm apply(byte[] event, int changes, String notFoundMessage)
      throws DumpFailure {
    if (event.length < EventHeader.SIZE
        || (event[EventHeader.TYPE_OFFSET] & 0xff) != EventType.FORMAT_DESCRIPTION.code()) {
      throw DumpFailure.whileReading(notFoundMessage);
    }
    ChecksumAlgorithm alg;
    try {
      alg = FormatDescriptionEvent.parse(event, 0, event.length).checksumAlgorithm();
    } catch (ProtocolException e) {
      throw DumpFailure.whileReading("bogus data in log event");
    }
    event[EventHeader.FLAGS_OFFSET] &= (byte) ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
    if ((changes & CLEAR_LOG_POS) != 0) {
      LittleEndian.put32(event, EventHeader.LOG_POS_OFFSET, 0);
    }
    if ((changes & CLEAR_CREATED) != 0 && event.length >= CREATED_OFFSET + 4) {
      LittleEndian.put32(event, CREATED_OFFSET, 0);
    }
    if (changes != NONE && alg == ChecksumAlgorithm.CRC32) {
      BinlogChecksum.patch(event, 0, event.length);
    }
    return alg;
  }
}
