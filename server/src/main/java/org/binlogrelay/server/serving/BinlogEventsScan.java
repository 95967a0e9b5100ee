package org.binlogrelay.server.serving;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.binlogrelay.protocol.event.AnnotateRowsEvent;
import org.binlogrelay.protocol.event.BinlogCheckpointEvent;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.BinlogEventDecoder;
import org.binlogrelay.protocol.event.ChecksumAlgorithm;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.event.FormatDescriptionEvent;
import org.binlogrelay.protocol.event.GtidEvent;
import org.binlogrelay.protocol.event.GtidListEvent;
import org.binlogrelay.protocol.event.MariadbGtidEvent;
import org.binlogrelay.protocol.event.PreviousGtidsEvent;
import org.binlogrelay.protocol.event.QueryEvent;
import org.binlogrelay.protocol.event.RotateEvent;
import org.binlogrelay.protocol.event.XidEvent;
import org.binlogrelay.server.downstream.sql.BinlogListing.EventRow;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.OpenedFile;
import org.binlogrelay.storage.read.EventCursor;

/**
 * {@code SHOW BINLOG EVENTS} over a stored file: walks it from its first event up to its readable
 * end, as mysqld's {@code mysql_show_binlog_events} does, and describes each event. Event_type is
 * the server's name for the type ({@code Format_desc}, {@code Gtid}, {@code Query}, {@code
 * Write_rows} ...). Info describes what the relay decodes, in the server's wording where it can:
 * the server version of a FORMAT_DESCRIPTION, the GTID of a GTID event ({@code
 * SET @@SESSION.GTID_NEXT= 'uuid:n'}; MariaDB {@code BEGIN GTID d-s-n} / {@code GTID d-s-n}), the
 * GTID sets of PREVIOUS_GTIDS and GTID_LIST, the statement of a query or annotate event, <code>
 * COMMIT /* xid=n *&#47;</code> and the next file of a ROTATE; it is empty for events the relay
 * does not decode (row events, table maps), never a guess. At most {@link #MAX_ROWS} rows come back
 * per statement, so a large file cannot exhaust memory; use FROM and LIMIT to page. Stateless.
 */
final class BinlogEventsScan {
  /** The most rows one SHOW BINLOG EVENTS returns. */
  static final int MAX_ROWS = 100_000;

  private BinlogEventsScan() {}

  /**
   * The rows, or empty if {@code file} is not stored; {@code file} null means the first stored
   * file.
   */
  static Optional<List<EventRow>> rows(
      BinlogSource store, String file, long from, long offset, long count) throws IOException {
    String name = file;
    if (name == null) {
      List<FileMetadata> files = store.files();
      if (files.isEmpty()) {
        return Optional.of(List.of());
      }
      name = files.get(0).name();
    }
    if (!BinlogFileName.isValid(name)) {
      return Optional.empty();
    }
    long readable;
    try {
      readable = store.readableLength(name);
    } catch (NoSuchElementException notStored) {
      return Optional.empty();
    }
    long wanted = count < 0 ? MAX_ROWS : Math.min(count, MAX_ROWS);
    List<EventRow> rows = new ArrayList<>();
    int maxEventSize = store.maxEventSize();
    long skipped = 0;
    try (OpenedFile opened = store.open(name)) {
      FileChannel channel = opened.channel();
      EventCursor cursor =
          new EventCursor(name, channel, BinlogFileName.FIRST_EVENT_OFFSET, readable, maxEventSize);
      BinlogEventDecoder decoder = new BinlogEventDecoder(ChecksumAlgorithm.OFF, maxEventSize);
      while (cursor.hasNext() && rows.size() < wanted) {
        long start = cursor.position();
        boolean shown = start >= from && skipped++ >= offset;
        if (!shown && cursor.peek().type() != EventType.FORMAT_DESCRIPTION) {
          cursor.skip();
          continue;
        }
        BinlogEvent event = cursor.next(decoder);
        if (shown) {
          rows.add(
              new EventRow(
                  name,
                  start,
                  typeName(event),
                  event.header().serverId(),
                  cursor.position(),
                  info(event, decoder.format())));
        }
      }
    }
    return Optional.of(rows);
  }

  /** Log_event::get_type_str's names. */
  static String typeName(BinlogEvent event) {
    switch (event.type()) {
      case START_V3:
        return "Start_v3";
      case QUERY:
        return "Query";
      case STOP:
        return "Stop";
      case ROTATE:
        return "Rotate";
      case INTVAR:
        return "Intvar";
      case RAND:
        return "RAND";
      case USER_VAR:
        return "User var";
      case FORMAT_DESCRIPTION:
        return "Format_desc";
      case XID:
        return "Xid";
      case BEGIN_LOAD_QUERY:
        return "Begin_load_query";
      case EXECUTE_LOAD_QUERY:
        return "Execute_load_query";
      case TABLE_MAP:
        return "Table_map";
      case WRITE_ROWS_V1:
        return "Write_rows_v1";
      case UPDATE_ROWS_V1:
        return "Update_rows_v1";
      case DELETE_ROWS_V1:
        return "Delete_rows_v1";
      case INCIDENT:
        return "Incident";
      case HEARTBEAT:
        return "Heartbeat";
      case IGNORABLE:
        return "Ignorable";
      case ROWS_QUERY:
        return "Rows_query";
      case WRITE_ROWS:
        return "Write_rows";
      case UPDATE_ROWS:
        return "Update_rows";
      case DELETE_ROWS:
        return "Delete_rows";
      case GTID:
        return "Gtid";
      case ANONYMOUS_GTID:
        return "Anonymous_Gtid";
      case PREVIOUS_GTIDS:
        return "Previous_gtids";
      case TRANSACTION_CONTEXT:
        return "Transaction_context";
      case VIEW_CHANGE:
        return "View_change";
      case XA_PREPARE:
        return "XA_prepare";
      case PARTIAL_UPDATE_ROWS:
        return "Update_rows_partial";
      case TRANSACTION_PAYLOAD:
        return "Transaction_payload";
      case GTID_TAGGED:
        return "Gtid_tagged_log_event";
      case ANNOTATE_ROWS:
        return "Annotate_rows";
      case BINLOG_CHECKPOINT:
        return "Binlog_checkpoint";
      case MARIADB_GTID:
        return "Gtid";
      case GTID_LIST:
        return "Gtid_list";
      case START_ENCRYPTION:
        return "Start_encryption";
      case QUERY_COMPRESSED:
        return "Query_compressed";
      case WRITE_ROWS_COMPRESSED_V1:
        return "Write_rows_compressed_v1";
      case UPDATE_ROWS_COMPRESSED_V1:
        return "Update_rows_compressed_v1";
      case DELETE_ROWS_COMPRESSED_V1:
        return "Delete_rows_compressed_v1";
      case WRITE_ROWS_COMPRESSED:
        return "Write_rows_compressed";
      case UPDATE_ROWS_COMPRESSED:
        return "Update_rows_compressed";
      case DELETE_ROWS_COMPRESSED:
        return "Delete_rows_compressed";
      default:
        return "Unknown";
    }
  }

  /** What the relay can say truthfully about the event; empty where it does not decode it. */
  static String info(BinlogEvent event, FormatDescriptionEvent format) {
    try {
      switch (event.type()) {
        case FORMAT_DESCRIPTION:
          return "Server ver: "
              + format.serverVersion()
              + ", Binlog ver: "
              + format.binlogVersion();
        case PREVIOUS_GTIDS:
          return PreviousGtidsEvent.parse(event, format).gtids().toString();
        case GTID:
        case GTID_TAGGED:
          return "SET @@SESSION.GTID_NEXT= '" + GtidEvent.parse(event, format).gtid() + "'";
        case ANONYMOUS_GTID:
          return "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'";
        case MARIADB_GTID:
          {
            MariadbGtidEvent gtid = MariadbGtidEvent.parse(event, format);
            return (gtid.isStandalone() ? "GTID " : "BEGIN GTID ") + gtid.gtid();
          }
        case GTID_LIST:
          return "[" + GtidListEvent.parse(event, format).gtidSet() + "]";
        case BINLOG_CHECKPOINT:
          return BinlogCheckpointEvent.parse(event, format).fileName();
        case QUERY:
          return QueryEvent.parse(event, format).query();
        case ANNOTATE_ROWS:
          return AnnotateRowsEvent.parse(event, format).query();
        case XID:
          return "COMMIT /* xid=" + XidEvent.parse(event, format).xid() + " */";
        case ROTATE:
          {
            RotateEvent rotate = RotateEvent.parse(event, format);
            return rotate.nextFile() + ";pos=" + rotate.position();
          }
        default:
          return "";
      }
    } catch (RuntimeException undecodable) {
      return "";
    }
  }
}
