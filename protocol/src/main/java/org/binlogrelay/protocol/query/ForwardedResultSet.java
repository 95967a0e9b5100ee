package org.binlogrelay.protocol.query;

import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.packet.EofPacket;
import org.binlogrelay.protocol.packet.OkPacket;

/**
 * A text-protocol result set as another server sent it, kept byte for byte: its column definitions
 * and rows as packet payloads. Only the framing is the relay's own, written for the client's EOF
 * style (the server may have used the other): the column count, the EOF after the definitions
 * unless the client has CLIENT_DEPRECATE_EOF, and the closing EOF or OK. Values, including binary
 * ones and those in character sets the relay does not know, pass unchanged, as do the column
 * definitions (names, types, collations, flags).
 *
 * <p>Immutable as long as no one writes into the arrays it was given (the reader that builds it
 * hands them over).
 *
 * @param columns the ColumnDefinition41 payloads, at least one
 * @param rows the row payloads, each a lenenc string or 0xFB per column
 */
public record ForwardedResultSet(List<byte[]> columns, List<byte[]> rows) {

  public ForwardedResultSet {
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("a result set needs at least one column");
    }
    columns = List.copyOf(columns);
    rows = List.copyOf(rows);
  }

  /** The bytes of the column definitions and rows. */
  public long size() {
    long total = 0;
    for (byte[] c : columns) {
      total += c.length;
    }
    for (byte[] r : rows) {
      total += r.length;
    }
    return total;
  }

  /**
   * The payloads to send, in order.
   *
   * @param deprecateEof whether the client negotiated CLIENT_DEPRECATE_EOF
   * @param statusFlags the server status for the closing EOF / OK
   */
  public List<byte[]> encode(boolean deprecateEof, int statusFlags) {
    List<byte[]> out = new ArrayList<>(columns.size() + rows.size() + 3);
    out.add(new ByteWriter(9).lenencInt(columns.size()).toByteArray());
    out.addAll(columns);
    if (!deprecateEof) {
      out.add(new EofPacket(0, statusFlags).encode());
    }
    out.addAll(rows);
    out.add(
        deprecateEof
            ? new OkPacket(0, 0, statusFlags, 0, "").encode(OkPacket.EOF_HEADER)
            : new EofPacket(0, statusFlags).encode());
    return out;
  }
}
