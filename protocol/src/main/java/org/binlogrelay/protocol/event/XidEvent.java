package org.binlogrelay.protocol.event;

import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * XID (16): the commit of a transaction on a transactional engine; ends the event group. Body: the
 * post-header (empty in every known version, skipped by its FORMAT_DESCRIPTION length) and the u64
 * transaction id. Immutable.
 *
 * @param xid the server's internal transaction id (u64, raw)
 */
public record XidEvent(long xid) {

  public static XidEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in = EventBody.open(event, fde, EventType.XID);
    in.skip(fde.postHeaderLength(EventType.XID, 0), "XID post-header");
    return new XidEvent(in.u64("XID xid"));
  }

  public byte[] encodeBody() {
    return new ByteWriter(8).u64(xid).toByteArray();
  }
}
