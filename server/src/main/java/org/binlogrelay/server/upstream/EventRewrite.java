package org.binlogrelay.server.upstream;

import org.binlogrelay.protocol.bytes.LittleEndian;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.RotateEvent;

/**
 * Makes and rewrites events for files the relay names ({@link RelayFiles}): a copy with another
 * log_pos (and, for the relay's FORMAT_DESCRIPTION, another server_id and the in-use flag clear),
 * its CRC32 computed again. A FORMAT_DESCRIPTION always has 4 bytes of checksum room; they get a
 * valid CRC32 whatever its algorithm, as MySQL and MariaDB write them. Stateless.
 */
final class EventRewrite {
  private EventRewrite() {}

  /** A copy of {@code event} ending at {@code logPos}; the CRC32 recomputed if it has one. */
  static BinlogEvent moved(BinlogEvent event, long logPos) {
    byte[] bytes = event.toByteArray();
    LittleEndian.put32(bytes, EventHeader.LOG_POS_OFFSET, logPos);
    if (event.hasChecksum()) {
      BinlogChecksum.patch(bytes, 0, bytes.length);
    }
    return BinlogEvent.wrap(bytes, event.hasChecksum());
  }

  /**
   * A copy of a FORMAT_DESCRIPTION as the first event of a file (log_pos 4 + size), with {@code
   * serverId} and the in-use flag clear (the store sets it while the file is open).
   */
  static BinlogEvent fileStart(BinlogEvent fde, long serverId) {
    if (fde.type() != EventType.FORMAT_DESCRIPTION) {
      throw new IllegalArgumentException("not a FORMAT_DESCRIPTION: " + fde);
    }
    byte[] bytes = fde.toByteArray();
    LittleEndian.put32(bytes, EventHeader.SERVER_ID_OFFSET, serverId);
    LittleEndian.put32(bytes, EventHeader.LOG_POS_OFFSET, 4 + bytes.length);
    int flags =
        LittleEndian.u16(bytes, EventHeader.FLAGS_OFFSET) & ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
    LittleEndian.put16(bytes, EventHeader.FLAGS_OFFSET, flags);
    BinlogChecksum.patch(bytes, 0, bytes.length);
    return BinlogEvent.wrap(bytes, fde.hasChecksum());
  }

  /**
   * A new event that starts at {@code at}: log_pos is its end; a CRC32 is appended if {@code
   * checksum}.
   */
  static BinlogEvent made(
      EventType type,
      long timestamp,
      long serverId,
      int flags,
      long at,
      byte[] body,
      boolean checksum) {
    long size = (long) EventHeader.SIZE + body.length + (checksum ? BinlogChecksum.SIZE : 0);
    EventHeader header = new EventHeader(timestamp, type.code(), serverId, size, at + size, flags);
    return BinlogEvent.assemble(header, body, checksum);
  }

  /**
   * An artificial ROTATE (log_pos 0, flag 0x20) naming {@code file} and {@code position}, as a dump
   * starts.
   */
  static BinlogEvent artificialRotate(String file, long position, long serverId, boolean checksum) {
    byte[] body = new RotateEvent(position, file).encodeBody();
    long size = (long) EventHeader.SIZE + body.length + (checksum ? BinlogChecksum.SIZE : 0);
    EventHeader header =
        new EventHeader(
            0, EventType.ROTATE.code(), serverId, size, 0, EventHeader.LOG_EVENT_ARTIFICIAL_F);
    return BinlogEvent.assemble(header, body, checksum);
  }
}
