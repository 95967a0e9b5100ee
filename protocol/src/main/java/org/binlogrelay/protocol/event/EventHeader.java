package org.binlogrelay.protocol.event;

import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.LittleEndian;

/**
 * The v4 common header that starts every binlog event, 19 bytes little-endian:
 *
 * <pre>
 *   offset  size  field
 *   0       4     timestamp    seconds since the epoch
 *   4       1     type         {@link EventType} code
 *   5       4     server_id    originating server
 *   9       4     event_size   whole event: header + body + checksum
 *   13      4     log_pos      end position of the event in its binlog file (the next event's offset);
 *                              0 for some artificial events (fake ROTATE, events inside a payload), and for
 *                              the events inside a transaction that MariaDB 11.4+ writes with
 *                              binlog_legacy_event_pos=OFF, its default (see {@link #positionFits})
 *   17      2     flags        LOG_EVENT_*_F bits below
 * </pre>
 *
 * Immutable. Unsigned 32-bit fields are held in {@code long}.
 *
 * @param timestamp seconds since the epoch (u32)
 * @param typeCode the raw type byte (0..255); see {@link #type()}
 * @param serverId originating server id (u32)
 * @param eventSize total event size in bytes (u32)
 * @param logPos end position of the event (u32)
 * @param flags LOG_EVENT_*_F bits (u16)
 */
public record EventHeader(
    long timestamp, int typeCode, long serverId, long eventSize, long logPos, int flags) {
  /** Size of the v4 common header. */
  public static final int SIZE = 19;

  public static final int TYPE_OFFSET = 4;
  public static final int SERVER_ID_OFFSET = 5;
  public static final int EVENT_SIZE_OFFSET = 9;
  public static final int LOG_POS_OFFSET = 13;
  public static final int FLAGS_OFFSET = 17;

  /**
   * FORMAT_DESCRIPTION only: set while the file is being written, cleared when it is closed
   * cleanly.
   */
  public static final int LOG_EVENT_BINLOG_IN_USE_F = 0x1;

  /** The query depends on the thread (temporary tables): print the pseudo thread id. */
  public static final int LOG_EVENT_THREAD_SPECIFIC_F = 0x4;

  /** Do not generate USE before the statement. */
  public static final int LOG_EVENT_SUPPRESS_USE_F = 0x8;

  /**
   * Created by the server, not written to a binlog (fake ROTATE); must not move the replica's
   * position.
   */
  public static final int LOG_EVENT_ARTIFICIAL_F = 0x20;

  /** Written by a replica's IO thread into its relay log. */
  public static final int LOG_EVENT_RELAY_LOG_F = 0x40;

  /** A replica that does not know the type may skip the event. */
  public static final int LOG_EVENT_IGNORABLE_F = 0x80;

  /** MySQL: the event is not subject to replication filters. */
  public static final int LOG_EVENT_NO_FILTER_F = 0x100;

  /** MySQL: the multi-threaded applier must run the event in isolation. */
  public static final int LOG_EVENT_MTS_ISOLATE_F = 0x200;

  /** MariaDB: written with {@code @@skip_replication} set. */
  public static final int LOG_EVENT_SKIP_REPLICATION_F = 0x8000;

  public EventHeader {
    requireUnsigned(timestamp, 0xffffffffL, "timestamp");
    requireUnsigned(typeCode, 0xff, "type");
    requireUnsigned(serverId, 0xffffffffL, "server_id");
    requireUnsigned(eventSize, 0xffffffffL, "event_size");
    requireUnsigned(logPos, 0xffffffffL, "log_pos");
    requireUnsigned(flags, 0xffff, "flags");
  }

  private static void requireUnsigned(long v, long max, String what) {
    if (v < 0 || v > max) {
      throw new IllegalArgumentException(what + " " + v + " outside 0.." + max);
    }
  }

  /**
   * Reads the header at {@code offset}; {@link ProtocolException} if fewer than 19 bytes are there.
   */
  public static EventHeader parse(byte[] buf, int offset) {
    if (offset < 0 || offset > buf.length - SIZE) {
      throw new ProtocolException(
          "event header: needs "
              + SIZE
              + " bytes at offset "
              + offset
              + ", buffer has "
              + buf.length);
    }
    return new EventHeader(
        LittleEndian.u32(buf, offset),
        buf[offset + TYPE_OFFSET] & 0xff,
        LittleEndian.u32(buf, offset + SERVER_ID_OFFSET),
        LittleEndian.u32(buf, offset + EVENT_SIZE_OFFSET),
        LittleEndian.u32(buf, offset + LOG_POS_OFFSET),
        LittleEndian.u16(buf, offset + FLAGS_OFFSET));
  }

  /** Writes the 19 header bytes at {@code offset}. */
  public void encodeTo(byte[] buf, int offset) {
    LittleEndian.put32(buf, offset, timestamp);
    buf[offset + TYPE_OFFSET] = (byte) typeCode;
    LittleEndian.put32(buf, offset + SERVER_ID_OFFSET, serverId);
    LittleEndian.put32(buf, offset + EVENT_SIZE_OFFSET, eventSize);
    LittleEndian.put32(buf, offset + LOG_POS_OFFSET, logPos);
    LittleEndian.put16(buf, offset + FLAGS_OFFSET, flags);
  }

  public byte[] encode() {
    byte[] out = new byte[SIZE];
    encodeTo(out, 0);
    return out;
  }

  public EventType type() {
    return EventType.forCode(typeCode);
  }

  public boolean hasFlag(int flag) {
    return (flags & flag) != 0;
  }

  /**
   * Whether this event's log_pos fits an event that ends at {@code end} of its binlog file: log_pos
   * is that end (modulo 2^32: files past 4 GiB wrap it), or the event is unpositioned inside a
   * transaction.
   *
   * <p>MariaDB 11.4 and later (with {@code binlog_legacy_event_pos=OFF}, the default) copy a
   * transaction from its cache into the binlog without setting the positions of the events inside
   * it: the Annotate_rows, Table_map, rows and query events between the GTID event and the commit
   * carry log_pos 0; the GTID event and the XID or COMMIT carry real ones. Such an event is where
   * its length puts it, as MariaDB's own replica counts it. Outside a transaction a log_pos of 0
   * marks an event the server made up for the dump, never one of the file.
   *
   * @param end where the event ends in its file
   * @param insideTransaction whether a transaction is open before this event (its GTID event was
   *     seen)
   */
  public boolean positionFits(long end, boolean insideTransaction) {
    return positionFits(logPos, flags, end, insideTransaction);
  }

  /**
   * {@link #positionFits(long, boolean)} on the raw log_pos and flags fields, for readers that do
   * not parse.
   */
  public static boolean positionFits(long logPos, int flags, long end, boolean insideTransaction) {
    return logPos == (end & 0xffff_ffffL) || (insideTransaction && unpositioned(logPos, flags));
  }

  /**
   * log_pos 0 on an event not flagged artificial: in a file, an event inside a MariaDB 11.4+
   * transaction.
   */
  public boolean unpositioned() {
    return unpositioned(logPos, flags);
  }

  private static boolean unpositioned(long logPos, int flags) {
    return logPos == 0 && (flags & LOG_EVENT_ARTIFICIAL_F) == 0;
  }

  public EventHeader withEventSize(long size) {
    return new EventHeader(timestamp, typeCode, serverId, size, logPos, flags);
  }

  public EventHeader withLogPos(long pos) {
    return new EventHeader(timestamp, typeCode, serverId, eventSize, pos, flags);
  }

  public EventHeader withFlags(int newFlags) {
    return new EventHeader(timestamp, typeCode, serverId, eventSize, logPos, newFlags);
  }

  /** A short description for error messages: type name (and code when unrecognised). */
  public String typeName() {
    EventType t = type();
    return t == EventType.UNRECOGNIZED ? "type " + typeCode : t.name();
  }
}
