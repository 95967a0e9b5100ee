package org.binlogrelay.protocol.event;

import java.nio.charset.StandardCharsets;
import org.binlogrelay.protocol.bytes.ByteReader;

/**
 * MariaDB's ANNOTATE_ROWS (160): the statement that produced the row events that follow, for humans
 * ({@code binlog_annotate_row_events}). The body (after an empty post-header) is the statement
 * text. Immutable by convention: do not modify {@link #queryBytes()}.
 *
 * @param queryBytes the statement as written
 */
public record AnnotateRowsEvent(byte[] queryBytes) {

  public static AnnotateRowsEvent parse(BinlogEvent event, FormatDescriptionEvent fde) {
    ByteReader in = EventBody.open(event, fde, EventType.ANNOTATE_ROWS);
    in.skip(fde.postHeaderLength(EventType.ANNOTATE_ROWS, 0), "ANNOTATE_ROWS post-header");
    return new AnnotateRowsEvent(in.rest());
  }

  public String query() {
    return new String(queryBytes, StandardCharsets.UTF_8);
  }
}
