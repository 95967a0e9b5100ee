package org.binlogrelay.protocol.event;

import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.gtid.MariadbGtid;

/**
 * MariaDB's GTID event (162), which starts every event group (instead of BEGIN) or marks a
 * standalone DDL. The server id of the GTID is the header's. Body (post-header of 19 bytes,
 * zero-padded when shorter):
 *
 * <pre>
 *   u64   seq_no
 *   u32   domain_id
 *   u8    flags2                 FL_* below
 *   u64   commit_id              if FL_GROUP_COMMIT_ID
 *   u32   xid format_id          if FL_PREPARED_XA or FL_COMPLETED_XA
 *   u8    gtrid_length           (same condition, 0..64)
 *   u8    bqual_length           (same condition, 0..64)
 *   n     xid data               (same condition) gtrid then bqual
 *   u8    flags_extra            if any bytes are left (0 when they are padding); FL_EXTRA_* below
 *   u8    extra_engines          if FL_EXTRA_MULTI_ENGINE
 *   u64   start_alter seq_no     if FL_COMMIT_ALTER or FL_ROLLBACK_ALTER
 *   ...   further extra fields   (11.5+, e.g. FL_EXTRA_THREAD_ID) are left undecoded
 * </pre>
 *
 * Immutable by convention: do not modify {@link #xidData()}.
 *
 * @param seqNo sequence number in the domain (u64, raw)
 * @param domainId replication domain (u32)
 * @param serverId originating server (u32, from the header)
 * @param flags the flags2 byte
 * @param commitId group commit id, 0 without FL_GROUP_COMMIT_ID
 * @param xaFormatId XID format id, 0 unless XA
 * @param gtridLength XID gtrid bytes, 0 unless XA
 * @param bqualLength XID bqual bytes, 0 unless XA
 * @param xidData gtrid followed by bqual (empty unless XA)
 * @param flagsExtra the extra flags byte, 0 when absent
 * @param extraEngines extra engines of a multi-engine transaction, 0 when absent
 * @param startAlterSeqNo seq_no of the START ALTER this COMMIT/ROLLBACK ALTER completes, 0 when
 *     absent
 */
public record MariadbGtidEvent(
    long seqNo,
    long domainId,
    long serverId,
    int flags,
    long commitId,
    int xaFormatId,
    int gtridLength,
    int bqualLength,
    byte[] xidData,
    int flagsExtra,
    int extraEngines,
    long startAlterSeqNo) {
  public static final int POST_HEADER_LENGTH = 19;

  public static final int FL_STANDALONE = 1;
  public static final int FL_GROUP_COMMIT_ID = 2;
  public static final int FL_TRANSACTIONAL = 4;
  public static final int FL_ALLOW_PARALLEL = 8;
  public static final int FL_WAITED = 16;
  public static final int FL_DDL = 32;
  public static final int FL_PREPARED_XA = 64;
  public static final int FL_COMPLETED_XA = 128;

  public static final int FL_EXTRA_MULTI_ENGINE = 1;
  public static final int FL_START_ALTER = 2;
  public static final int FL_COMMIT_ALTER = 4;
  public static final int FL_ROLLBACK_ALTER = 8;

  /** MariaDB 11.5+: the originating thread id follows (not decoded here). */
  public static final int FL_EXTRA_THREAD_ID = 16;

  static final int MAX_XID_PART = 64;
  private static final String T = "MARIADB_GTID ";

  public static MariadbGtidEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in = EventBody.open(event, fde, EventType.MARIADB_GTID);
    int postHeader = fde.postHeaderLength(EventType.MARIADB_GTID, POST_HEADER_LENGTH);
    if (postHeader < POST_HEADER_LENGTH || in.remaining() < postHeader) {
      throw EventBody.error(
          event,
          in,
          in.remaining()
              + " body bytes, post-header length "
              + postHeader
              + " (needs at least "
              + POST_HEADER_LENGTH
              + ")");
    }
    long seqNo = in.u64(T + "seq_no");
    long domainId = in.u32(T + "domain_id");
    int flags = in.u8(T + "flags2");
    long commitId = (flags & FL_GROUP_COMMIT_ID) != 0 ? in.u64(T + "commit_id") : 0;
    int formatId = 0;
    int gtrid = 0;
    int bqual = 0;
    byte[] xid = new byte[0];
    if ((flags & (FL_PREPARED_XA | FL_COMPLETED_XA)) != 0) {
      formatId = (int) in.u32(T + "xid format_id");
      gtrid = in.u8(T + "gtrid_length");
      bqual = in.u8(T + "bqual_length");
      if (gtrid > MAX_XID_PART || bqual > MAX_XID_PART) {
        throw EventBody.error(
            event,
            in,
            "gtrid_length " + gtrid + " / bqual_length " + bqual + " over " + MAX_XID_PART);
      }
      xid = in.bytes(gtrid + bqual, T + "xid data");
    }
    int extra = in.hasRemaining() ? in.u8(T + "flags_extra") : 0;
    int engines = (extra & FL_EXTRA_MULTI_ENGINE) != 0 ? in.u8(T + "extra_engines") : 0;
    long alterSeqNo =
        (extra & (FL_COMMIT_ALTER | FL_ROLLBACK_ALTER)) != 0 ? in.u64(T + "start_alter seq_no") : 0;
    return new MariadbGtidEvent(
        seqNo,
        domainId,
        event.header().serverId(),
        flags,
        commitId,
        formatId,
        gtrid,
        bqual,
        xid,
        extra,
        engines,
        alterSeqNo);
  }

  public boolean hasFlag(int flag) {
    return (flags & flag) != 0;
  }

  /** True for a standalone event group (DDL) that has no COMMIT/XID at its end. */
  public boolean isStandalone() {
    return hasFlag(FL_STANDALONE);
  }

  public MariadbGtid gtid() {
    return new MariadbGtid(domainId, serverId, seqNo);
  }
}
