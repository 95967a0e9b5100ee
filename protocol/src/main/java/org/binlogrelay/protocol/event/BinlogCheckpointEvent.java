package org.binlogrelay.protocol.event;

import org.binlogrelay.protocol.bytes.ByteReader;

/**
 * MariaDB's BINLOG_CHECKPOINT (161): the oldest binlog file that XA crash recovery still needs.
 * Body: {@code u32 name_length} (the 4-byte post-header) then the file name. Immutable.
 *
 * @param fileName e.g. "mariadb-bin.000003"
 */
public record BinlogCheckpointEvent(String fileName) {
  public static final int POST_HEADER_LENGTH = 4;

  public static BinlogCheckpointEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in = EventBody.open(event, fde, EventType.BINLOG_CHECKPOINT);
    int start = in.position();
    long length = in.u32("BINLOG_CHECKPOINT name length");
    int postHeader = fde.postHeaderLength(EventType.BINLOG_CHECKPOINT, POST_HEADER_LENGTH);
    if (postHeader < POST_HEADER_LENGTH) {
      throw EventBody.error(
          event, in, "post-header length " + postHeader + " is below " + POST_HEADER_LENGTH);
    }
    EventBody.skipTo(in, start, postHeader, "BINLOG_CHECKPOINT post-header");
    in.require(length, "BINLOG_CHECKPOINT file name");
    return new BinlogCheckpointEvent(in.string((int) length, "BINLOG_CHECKPOINT file name"));
  }
}
