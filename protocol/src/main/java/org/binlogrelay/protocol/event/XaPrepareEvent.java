package org.binlogrelay.protocol.event;

import java.util.Arrays;
import org.binlogrelay.protocol.bytes.ByteReader;

/**
 * XA_PREPARE (38): ends the event group of an {@code XA PREPARE} (or of an {@code XA COMMIT ... ONE
 * PHASE}) the way XID ends an ordinary transaction. Body after the (empty) post-header:
 *
 * <pre>
 *   u8    one_phase         1 for XA COMMIT ... ONE PHASE
 *   u32   format_id
 *   u32   gtrid_length      0..64
 *   u32   bqual_length      0..64
 *   n     data              gtrid then bqual, gtrid_length + bqual_length bytes
 * </pre>
 *
 * Immutable by convention: {@link #data()} is the parsed array, do not modify it.
 *
 * @param onePhase true for a one-phase commit
 * @param formatId the XID format id (signed 32-bit as MySQL prints it)
 * @param gtridLength bytes of the global transaction id
 * @param bqualLength bytes of the branch qualifier
 * @param data gtrid followed by bqual
 */
public record XaPrepareEvent(
    boolean onePhase, int formatId, int gtridLength, int bqualLength, byte[] data) {
  /** The largest gtrid and the largest bqual. */
  public static final int MAX_PART_LENGTH = 64;

  public static XaPrepareEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in = EventBody.open(event, fde, EventType.XA_PREPARE);
    in.skip(fde.postHeaderLength(EventType.XA_PREPARE, 0), "XA_PREPARE post-header");
    boolean onePhase = in.u8("XA_PREPARE one_phase") != 0;
    int formatId = (int) in.u32("XA_PREPARE format_id");
    long gtrid = in.u32("XA_PREPARE gtrid_length");
    long bqual = in.u32("XA_PREPARE bqual_length");
    if (gtrid > MAX_PART_LENGTH || bqual > MAX_PART_LENGTH) {
      throw EventBody.error(
          event,
          in,
          "gtrid_length " + gtrid + " / bqual_length " + bqual + " over " + MAX_PART_LENGTH);
    }
    byte[] data = in.bytes((int) (gtrid + bqual), "XA_PREPARE xid data");
    return new XaPrepareEvent(onePhase, formatId, (int) gtrid, (int) bqual, data);
  }

  public byte[] gtrid() {
    return Arrays.copyOfRange(data, 0, gtridLength);
  }

  public byte[] bqual() {
    return Arrays.copyOfRange(data, gtridLength, gtridLength + bqualLength);
  }
}
