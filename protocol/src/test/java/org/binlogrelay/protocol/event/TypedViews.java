package org.binlogrelay.protocol.event;

/**
 * Test side: parses an event with the typed view for its type; {@code null} for types kept opaque.
 */
final class TypedViews {
  private TypedViews() {}

  static Object parse(BinlogEvent e, FormatDescriptionEvent fde) {
    return switch (e.type()) {
      case FORMAT_DESCRIPTION -> FormatDescriptionEvent.parse(e);
      case ROTATE -> RotateEvent.parse(e, fde);
      case STOP -> StopEvent.parse(e);
      case QUERY -> QueryEvent.parse(e, fde);
      case XID -> XidEvent.parse(e, fde);
      case GTID, ANONYMOUS_GTID, GTID_TAGGED -> GtidEvent.parse(e, fde);
      case PREVIOUS_GTIDS -> PreviousGtidsEvent.parse(e, fde);
      case XA_PREPARE -> XaPrepareEvent.parse(e, fde);
      case HEARTBEAT -> HeartbeatEvent.parse(e, fde);
      case HEARTBEAT_V2 -> HeartbeatV2Event.parse(e, fde);
      case TRANSACTION_PAYLOAD -> TransactionPayloadEvent.parse(e, fde);
      case MARIADB_GTID -> MariadbGtidEvent.parse(e, fde);
      case GTID_LIST -> GtidListEvent.parse(e, fde);
      case BINLOG_CHECKPOINT -> BinlogCheckpointEvent.parse(e, fde);
      case ANNOTATE_ROWS -> AnnotateRowsEvent.parse(e, fde);
      default -> null;
    };
  }
}
