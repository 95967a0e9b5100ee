package org.binlogrelay.protocol.event;

/**
 * Binlog event type codes of MySQL (up to 9.x) and MariaDB (from 160 up, through 12.x). The code is
 * the byte at offset 4 of the event header. Codes neither server defines map to {@link
 * #UNRECOGNIZED}; the raw code always stays available in {@link EventHeader#typeCode()}, so an
 * unknown event is carried as opaque bytes rather than refused.
 */
public enum EventType {
  UNKNOWN(0),
  START_V3(1),
  QUERY(2),
  STOP(3),
  ROTATE(4),
  INTVAR(5),
  LOAD(6),
  SLAVE(7),
  CREATE_FILE(8),
  APPEND_BLOCK(9),
  EXEC_LOAD(10),
  DELETE_FILE(11),
  NEW_LOAD(12),
  RAND(13),
  USER_VAR(14),
  FORMAT_DESCRIPTION(15),
  XID(16),
  BEGIN_LOAD_QUERY(17),
  EXECUTE_LOAD_QUERY(18),
  TABLE_MAP(19),
  PRE_GA_WRITE_ROWS(20),
  PRE_GA_UPDATE_ROWS(21),
  PRE_GA_DELETE_ROWS(22),
  WRITE_ROWS_V1(23),
  UPDATE_ROWS_V1(24),
  DELETE_ROWS_V1(25),
  INCIDENT(26),
  HEARTBEAT(27),
  IGNORABLE(28),
  ROWS_QUERY(29),
  WRITE_ROWS(30),
  UPDATE_ROWS(31),
  DELETE_ROWS(32),
  GTID(33),
  ANONYMOUS_GTID(34),
  PREVIOUS_GTIDS(35),
  TRANSACTION_CONTEXT(36),
  VIEW_CHANGE(37),
  XA_PREPARE(38),
  PARTIAL_UPDATE_ROWS(39),
  TRANSACTION_PAYLOAD(40),
  HEARTBEAT_V2(41),
  GTID_TAGGED(42),
  ANNOTATE_ROWS(160),
  BINLOG_CHECKPOINT(161),
  MARIADB_GTID(162),
  GTID_LIST(163),
  START_ENCRYPTION(164),
  QUERY_COMPRESSED(165),
  WRITE_ROWS_COMPRESSED_V1(166),
  UPDATE_ROWS_COMPRESSED_V1(167),
  DELETE_ROWS_COMPRESSED_V1(168),
  WRITE_ROWS_COMPRESSED(169),
  UPDATE_ROWS_COMPRESSED(170),
  DELETE_ROWS_COMPRESSED(171),
  /** MariaDB 12.3+: a fragment of a rows event larger than the replica's packet limit. */
  PARTIAL_ROW_DATA(172),
  /** Any code not listed above; see {@link EventHeader#typeCode()} for the value. */
  UNRECOGNIZED(-1);

  private static final EventType[] BY_CODE = new EventType[256];

  static {
    for (EventType t : values()) {
      if (t.code >= 0) {
        BY_CODE[t.code] = t;
      }
    }
  }

  private final int code;

  EventType(int code) {
    this.code = code;
  }

  /** The type byte, or -1 for {@link #UNRECOGNIZED}. */
  public int code() {
    return code;
  }

  /** The type for {@code code}, {@link #UNRECOGNIZED} if no server defines it. Never throws. */
  public static EventType forCode(int code) {
    EventType t = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    return t == null ? UNRECOGNIZED : t;
  }

  /**
   * True for the MySQL GTID events that start a transaction: GTID, ANONYMOUS_GTID and GTID_TAGGED.
   */
  public boolean isMysqlGtid() {
    return this == GTID || this == ANONYMOUS_GTID || this == GTID_TAGGED;
  }

  /** True for the MariaDB-only codes (160 and up). */
  public boolean isMariadbOnly() {
    return code >= 160;
  }
}
