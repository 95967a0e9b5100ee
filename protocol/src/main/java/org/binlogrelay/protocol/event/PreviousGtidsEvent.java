package org.binlogrelay.protocol.event;

import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;

/**
 * PREVIOUS_GTIDS (35): the second event of a MySQL binlog file with GTIDs, the set of GTIDs written
 * to all earlier files. The body (after an empty post-header) is a GTID set in MySQL's binary form,
 * untagged or tagged, decoded by {@link MysqlGtidSet#decode}; at least 8 bytes. The raw body is
 * kept alongside. Immutable by convention: do not modify {@link #encoded()} or the set.
 *
 * @param encoded the body bytes exactly as written
 * @param gtids the decoded set
 */
public record PreviousGtidsEvent(byte[] encoded, MysqlGtidSet gtids) {
  static final int MINIMUM_BODY = 8;

  public static PreviousGtidsEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in = EventBody.open(event, fde, EventType.PREVIOUS_GTIDS);
    in.skip(fde.postHeaderLength(EventType.PREVIOUS_GTIDS, 0), "PREVIOUS_GTIDS post-header");
    if (in.remaining() < MINIMUM_BODY) {
      throw EventBody.error(
          event, in, in.remaining() + " body bytes, a GTID set needs at least " + MINIMUM_BODY);
    }
    int start = in.position();
    MysqlGtidSet set = MysqlGtidSet.decode(in);
    if (in.hasRemaining()) {
      throw EventBody.error(event, in, in.remaining() + " bytes left after the GTID set");
    }
    in.position(start);
    return new PreviousGtidsEvent(in.rest(), set);
  }
}
