package org.binlogrelay.protocol.query;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.packet.EofPacket;
import org.binlogrelay.protocol.packet.OkPacket;

/**
 * A text-protocol result set (the answer to a COM_QUERY that returns rows), and its encoding as
 * packet payloads:
 *
 * <pre>
 *   lenenc int        column count
 *   column count x    {@link ColumnDefinition}
 *   EOF               unless CLIENT_DEPRECATE_EOF
 *   row x             each value a lenenc string, or 0xFB for NULL
 *   EOF               or, with CLIENT_DEPRECATE_EOF, an OK with header 0xFE
 * </pre>
 *
 * Immutable; values are text, null for SQL NULL.
 */
public record TextResultSet(List<ColumnDefinition> columns, List<List<String>> rows) {
  private static final int NULL_VALUE = 0xfb;

  public TextResultSet {
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("a result set needs at least one column");
    }
    columns = List.copyOf(columns);
    List<List<String>> copy = new ArrayList<>(rows.size());
    for (List<String> row : rows) {
      if (row.size() != columns.size()) {
        throw new IllegalArgumentException(
            "row of " + row.size() + " values for " + columns.size() + " columns");
      }
      copy.add(Collections.unmodifiableList(new ArrayList<>(row)));
    }
    rows = Collections.unmodifiableList(copy);
  }

  /**
   * The payloads of this result set, in order.
   *
   * @param deprecateEof whether the client negotiated CLIENT_DEPRECATE_EOF
   * @param statusFlags the server status for the closing EOF / OK
   */
  public List<byte[]> encode(boolean deprecateEof, int statusFlags) {
    List<byte[]> out = new ArrayList<>(columns.size() + rows.size() + 3);
    out.add(new ByteWriter(9).lenencInt(columns.size()).toByteArray());
    for (ColumnDefinition c : columns) {
      out.add(c.encode());
    }
    if (!deprecateEof) {
      out.add(new EofPacket(0, statusFlags).encode());
    }
    for (List<String> row : rows) {
      ByteWriter w = new ByteWriter(16 * row.size());
      for (String value : row) {
        if (value == null) {
          w.u8(NULL_VALUE);
        } else {
          w.lenencString(value);
        }
      }
      out.add(w.toByteArray());
    }
    out.add(
        deprecateEof
            ? new OkPacket(0, 0, statusFlags, 0, "").encode(OkPacket.EOF_HEADER)
            : new EofPacket(0, statusFlags).encode());
    return out;
  }
}
