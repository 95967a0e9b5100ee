package org.binlogrelay.protocol.event;

import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;

/**
 * MariaDB's GTID_LIST (163): written after the FORMAT_DESCRIPTION of every file, the binlog state
 * (last GTID per domain and server) at the start of the file. Body:
 *
 * <pre>
 *   u32   count and flags     low 28 bits: count; top 4 bits: FLAG_* below
 *   count x 16 bytes:
 *     u32 domain_id
 *     u32 server_id
 *     u64 seq_no
 * </pre>
 *
 * The count is checked against the event size before anything is allocated. Immutable.
 *
 * @param flags the top 4 bits of the first word, unshifted ({@link #FLAG_UNTIL_REACHED}, ...)
 * @param gtids the entries in file order
 */
public record GtidListEvent(int flags, List<MariadbGtid> gtids) {
  public static final int POST_HEADER_LENGTH = 4;
  public static final int FLAG_UNTIL_REACHED = 1 << 28;
  public static final int FLAG_IGN_GTIDS = 1 << 29;
  static final int ENTRY_SIZE = 16;
  static final int COUNT_MASK = (1 << 28) - 1;

  public GtidListEvent {
    gtids = List.copyOf(gtids);
  }

  public static GtidListEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in = EventBody.open(event, fde, EventType.GTID_LIST);
    int start = in.position();
    long word = in.u32("GTID_LIST count");
    EventBody.skipTo(
        in,
        start,
        fde.postHeaderLength(EventType.GTID_LIST, POST_HEADER_LENGTH),
        "GTID_LIST post-header");
    int count = (int) (word & COUNT_MASK);
    in.require((long) count * ENTRY_SIZE, "GTID_LIST " + count + " entries");
    List<MariadbGtid> list = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      long domain = in.u32("GTID_LIST domain_id");
      long server = in.u32("GTID_LIST server_id");
      list.add(new MariadbGtid(domain, server, in.u64("GTID_LIST seq_no")));
    }
    return new GtidListEvent((int) (word & ~COUNT_MASK), list);
  }

  /** The entries as a binlog state. */
  public MariadbGtidSet gtidSet() {
    return MariadbGtidSet.of(gtids);
  }
}
