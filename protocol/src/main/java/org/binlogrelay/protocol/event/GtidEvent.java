package org.binlogrelay.protocol.event;

import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.gtid.MysqlGtid;

/**
 * The MySQL event that starts every transaction: GTID (33), ANONYMOUS_GTID (34, gtid_mode OFF, gno
 * 0) and GTID_TAGGED (42, MySQL 8.3+, a GTID with a tag). Types 33 and 34 use a fixed layout, read
 * by this class; type 42 uses MySQL's serialization format and is read by {@link
 * TaggedGtidDecoder}. Layout of 33/34:
 *
 * <pre>
 *   u8      flags                     bit 0: may contain statement-based changes
 *   16      source uuid               big-endian bytes
 *   i64     gno                       1..2^63-2 (0 for ANONYMOUS_GTID)
 *   -- the rest appears only if there are bytes left, each group depending on the one before --
 *   u8      logical clock typecode    2
 *   i64     last_committed
 *   i64     sequence_number
 *   u56     immediate_commit_ts       microseconds; bit 55 set means original_commit_ts follows
 *   u56     original_commit_ts        (otherwise equal to immediate_commit_ts)
 *   packed  transaction_length        length-encoded integer: bytes of the whole transaction
 *   u32     immediate_server_version  bit 31 set means original_server_version follows
 *   u32     original_server_version   (otherwise equal to immediate_server_version)
 *   u64     commit_group_ticket
 * </pre>
 *
 * Absent fields take MySQL's defaults: 0, except that when the commit timestamps are present but
 * the server versions are not, both versions are {@link #UNDEFINED_SERVER_VERSION}. Immutable.
 *
 * @param type GTID, ANONYMOUS_GTID or GTID_TAGGED
 * @param flags the GTID flags byte
 * @param sourceId the originating server's UUID (all zero for ANONYMOUS_GTID)
 * @param tag the tag, "" when untagged
 * @param gno the transaction number
 * @param lastCommitted logical clock: the sequence number this transaction depends on
 * @param sequenceNumber logical clock: this transaction's number within the binlog file
 * @param immediateCommitTimestamp commit time on the immediate source, microseconds since the epoch
 * @param originalCommitTimestamp commit time on the originating source, microseconds since the
 *     epoch
 * @param transactionLength bytes of the whole transaction, this event included
 * @param immediateServerVersion version of the immediate source, e.g. 90704
 * @param originalServerVersion version of the originating source
 * @param commitGroupTicket binlog group commit ticket, 0 when unset
 */
public record GtidEvent(
    EventType type,
    int flags,
    UUID sourceId,
    String tag,
    long gno,
    long lastCommitted,
    long sequenceNumber,
    long immediateCommitTimestamp,
    long originalCommitTimestamp,
    long transactionLength,
    long immediateServerVersion,
    long originalServerVersion,
    long commitGroupTicket) {

  /** Flags bit: the transaction may contain statement-based changes. */
  public static final int FLAG_MAY_HAVE_SBR = 1;

  /** The server version reported when the event has timestamps but no version. */
  public static final long UNDEFINED_SERVER_VERSION = 999999;

  /** Largest gno, 2^63 - 2. */
  public static final long MAX_GNO = Long.MAX_VALUE - 1;

  static final int LOGICAL_CLOCK_TYPECODE = 2;
  static final long COMMIT_TIMESTAMP_FLAG = 1L << 55;
  static final long SERVER_VERSION_FLAG = 1L << 31;

  /** Parses a GTID, ANONYMOUS_GTID or GTID_TAGGED event. */
  public static GtidEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in =
        EventBody.open(event, fde, EventType.GTID, EventType.ANONYMOUS_GTID, EventType.GTID_TAGGED);
    GtidEvent parsed =
        event.type() == EventType.GTID_TAGGED
            ? TaggedGtidDecoder.decode(event, in)
            : parseFixed(event.type(), in);
    parsed.checkGno(event, in);
    parsed.checkTag(event, in);
    return parsed;
  }

  /**
   * The field names parse errors quote ("GTID gno"), per event type: built once, not for every
   * event (the upstream parses a GTID event per transaction; the concatenations were a tenth of the
   * relay's allocation at 5,000 transactions a second).
   */
  private static final String[] FIELD_NAMES = {
    "flags",
    "uuid",
    "gno",
    "logical clock typecode",
    "last_committed",
    "sequence_number",
    "immediate_commit_timestamp",
    "original_commit_timestamp",
    "transaction_length",
    "immediate_server_version",
    "original_server_version",
    "commit_group_ticket"
  };

  private static final Map<EventType, String[]> FIELD_LABELS = fieldLabels();

  private static final int F_FLAGS = 0;
  private static final int F_UUID = 1;
  private static final int F_GNO = 2;
  private static final int F_LOGICAL_CLOCK_TYPECODE = 3;
  private static final int F_LAST_COMMITTED = 4;
  private static final int F_SEQUENCE_NUMBER = 5;
  private static final int F_IMMEDIATE_COMMIT_TIMESTAMP = 6;
  private static final int F_ORIGINAL_COMMIT_TIMESTAMP = 7;
  private static final int F_TRANSACTION_LENGTH = 8;
  private static final int F_IMMEDIATE_SERVER_VERSION = 9;
  private static final int F_ORIGINAL_SERVER_VERSION = 10;
  private static final int F_COMMIT_GROUP_TICKET = 11;

  private static Map<EventType, String[]> fieldLabels() {
    Map<EventType, String[]> labels = new EnumMap<>(EventType.class);
    for (EventType type : EventType.values()) {
      String[] l = new String[FIELD_NAMES.length];
      for (int i = 0; i < l.length; i++) {
        l[i] = type.name() + " " + FIELD_NAMES[i];
      }
      labels.put(type, l);
    }
    return labels;
  }

  private static GtidEvent parseFixed(EventType type, ByteReader in) {
    String[] t = FIELD_LABELS.get(type);
    int flags = in.u8(t[F_FLAGS]);
    UUID uuid = new UUID(in.u64be(t[F_UUID]), in.u64be(t[F_UUID]));
    long gno = in.u64(t[F_GNO]);
    long lastCommitted = 0;
    long sequenceNumber = 0;
    long immediateTs = 0;
    long originalTs = 0;
    long length = 0;
    long immediateVersion = 0;
    long originalVersion = 0;
    long ticket = 0;
    if (in.hasRemaining() && in.u8(t[F_LOGICAL_CLOCK_TYPECODE]) == LOGICAL_CLOCK_TYPECODE) {
      lastCommitted = in.u64(t[F_LAST_COMMITTED]);
      sequenceNumber = in.u64(t[F_SEQUENCE_NUMBER]);
      if (in.remaining() >= 7) {
        immediateTs = in.uint(7, t[F_IMMEDIATE_COMMIT_TIMESTAMP]);
        originalTs = immediateTs;
        if ((immediateTs & COMMIT_TIMESTAMP_FLAG) != 0) {
          immediateTs &= ~COMMIT_TIMESTAMP_FLAG;
          originalTs = in.uint(7, t[F_ORIGINAL_COMMIT_TIMESTAMP]);
        }
        if (in.hasRemaining()) {
          length = in.lenencInt(t[F_TRANSACTION_LENGTH]);
        }
        immediateVersion = UNDEFINED_SERVER_VERSION;
        originalVersion = UNDEFINED_SERVER_VERSION;
        if (in.remaining() >= 4) {
          immediateVersion = in.u32(t[F_IMMEDIATE_SERVER_VERSION]);
          originalVersion = immediateVersion;
          if ((immediateVersion & SERVER_VERSION_FLAG) != 0) {
            immediateVersion &= ~SERVER_VERSION_FLAG;
            originalVersion = in.u32(t[F_ORIGINAL_SERVER_VERSION]);
          }
          if (in.remaining() >= 8) {
            ticket = in.u64(t[F_COMMIT_GROUP_TICKET]);
          }
        }
      }
    }
    return new GtidEvent(
        type,
        flags,
        uuid,
        "",
        gno,
        lastCommitted,
        sequenceNumber,
        immediateTs,
        originalTs,
        length,
        immediateVersion,
        originalVersion,
        ticket);
  }

  private void checkGno(BinlogEvent event, ByteReader in) {
    boolean valid = type == EventType.ANONYMOUS_GTID ? gno == 0 : gno >= 1 && gno <= MAX_GNO;
    if (!valid) {
      throw EventBody.error(event, in, "invalid gno " + gno);
    }
  }

  /**
   * A tag MySQL would not accept (its characters, its first character) would fail later in {@link
   * #gtid()}.
   */
  private void checkTag(BinlogEvent event, ByteReader in) {
    if (isTagged()) {
      try {
        gtid();
      } catch (IllegalArgumentException e) {
        throw EventBody.error(event, in, e.getMessage());
      }
    }
  }

  public boolean isAnonymous() {
    return type == EventType.ANONYMOUS_GTID;
  }

  public boolean isTagged() {
    return !tag.isEmpty();
  }

  public boolean mayHaveStatementChanges() {
    return (flags & FLAG_MAY_HAVE_SBR) != 0;
  }

  /** The GTID; {@link IllegalStateException} for an anonymous transaction, which has none. */
  public MysqlGtid gtid() {
    if (isAnonymous()) {
      throw new IllegalStateException("ANONYMOUS_GTID event has no GTID");
    }
    return new MysqlGtid(sourceId, tag, gno);
  }
}
