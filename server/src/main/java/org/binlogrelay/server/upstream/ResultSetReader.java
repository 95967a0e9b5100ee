package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.packet.BlockingPacketReader;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.ForwardedResultSet;
import org.binlogrelay.protocol.query.QueryResponse;

/**
 * Reads the answer to a COM_QUERY in the text protocol, as a client without CLIENT_DEPRECATE_EOF
 * gets it (the capabilities mysql-binlog-connector-java's handshake announces):
 *
 * <pre>
 *   ERR                                   the statement failed
 *   OK                                    a statement without a result set
 *   lenenc column count, column definitions..., EOF, rows..., EOF (or ERR)
 * </pre>
 *
 * A row is one length-encoded string per column, or 0xFB for NULL. Of a column definition only the
 * name is kept. Stateless; reads through the caller's {@link BlockingPacketReader}.
 */
final class ResultSetReader {
  private static final int NULL_VALUE = 0xfb;
  private static final int EOF_HEADER = 0xfe;

  /**
   * An EOF packet is shorter than this; a row starting with 0xFE is longer (a huge length prefix).
   */
  private static final int EOF_MAX_LENGTH = 9;

  private ResultSetReader() {}

  /** Reads one whole answer; an ERR becomes a {@link PrimaryErrorException} naming {@code what}. */
  static ResultRows read(BlockingPacketReader reader, String what) throws IOException {
    byte[] first = reader.read();
    if (ErrPacket.isErr(first)) {
      throw PrimaryErrorException.of(what, ErrPacket.decode(first));
    }
    if ((first[0] & 0xff) == OkPacket.HEADER) {
      return ResultRows.empty();
    }
    ByteReader head = new ByteReader(first);
    long count = head.lenencInt("column count");
    if (count < 1 || count > 4096) {
      throw new ProtocolException(what + ": result set with " + count + " columns");
    }
    List<String> columns = new ArrayList<>((int) count);
    for (int i = 0; i < count; i++) {
      columns.add(columnName(reader.read()));
    }
    if (!isEof(reader.read())) {
      throw new ProtocolException(what + ": no EOF after the " + count + " column definitions");
    }
    List<List<String>> rows = new ArrayList<>();
    while (true) {
      byte[] packet = reader.read();
      if (isEof(packet)) {
        return new ResultRows(columns, rows);
      }
      if (ErrPacket.isErr(packet)) {
        throw PrimaryErrorException.of(what, ErrPacket.decode(packet));
      }
      rows.add(row(packet, columns.size()));
    }
  }

  /**
   * Reads one whole answer to pass on to a client: the server's OK or ERR as they are, or its
   * result set with the column definitions and rows kept byte for byte ({@link
   * ForwardedResultSet}). An ERR among the rows (the statement failed half way) is the answer.
   * Nothing is decoded but the framing.
   *
   * @param maxBytes the most bytes of column definitions and rows accepted
   * @throws QueryConnection.AnswerTooLargeException if the result set has more; the rest is left
   *     unread, so the connection is out of step and must be closed
   */
  static QueryResponse readForwarded(BlockingPacketReader reader, long maxBytes, String what)
      throws IOException {
    byte[] first = reader.read();
    if (ErrPacket.isErr(first)) {
      return new QueryResponse.Err(ErrPacket.decode(first));
    }
    if (OkPacket.isOk(first)) {
      return new QueryResponse.Ok(OkPacket.decode(first));
    }
    long count = new ByteReader(first).lenencInt("column count");
    if (count < 1 || count > 4096) {
      throw new ProtocolException(what + ": result set with " + count + " columns");
    }
    long total = 0;
    List<byte[]> columns = new ArrayList<>((int) count);
    for (int i = 0; i < count; i++) {
      byte[] column = reader.read();
      total = within(total + column.length, maxBytes, what);
      columns.add(column);
    }
    if (!isEof(reader.read())) {
      throw new ProtocolException(what + ": no EOF after the " + count + " column definitions");
    }
    List<byte[]> rows = new ArrayList<>();
    while (true) {
      byte[] packet = reader.read();
      if (isEof(packet)) {
        return new QueryResponse.Forwarded(new ForwardedResultSet(columns, rows));
      }
      if (ErrPacket.isErr(packet)) {
        return new QueryResponse.Err(ErrPacket.decode(packet));
      }
      total = within(total + packet.length, maxBytes, what);
      rows.add(packet);
    }
  }

  private static long within(long total, long maxBytes, String what)
      throws QueryConnection.AnswerTooLargeException {
    if (total > maxBytes) {
      throw new QueryConnection.AnswerTooLargeException(
          what + ": the result set is larger than " + maxBytes + " bytes", maxBytes);
    }
    return total;
  }

  /**
   * Reads the answer to a statement that returns no rows: OK, or ERR as a {@link
   * PrimaryErrorException}.
   */
  static void readOk(BlockingPacketReader reader, String what) throws IOException {
    byte[] answer = reader.read();
    if (ErrPacket.isErr(answer)) {
      throw PrimaryErrorException.of(what, ErrPacket.decode(answer));
    }
    if (!OkPacket.isOk(answer)) {
      throw new ProtocolException(
          what
              + ": expected an OK packet, got one starting with 0x"
              + Integer.toHexString(answer.length == 0 ? 0 : answer[0] & 0xff));
    }
  }

  private static boolean isEof(byte[] packet) {
    return packet.length > 0 && packet.length < EOF_MAX_LENGTH && (packet[0] & 0xff) == EOF_HEADER;
  }

  /** ColumnDefinition41: catalog, schema, table, org_table, name, ... */
  private static String columnName(byte[] packet) {
    ByteReader in = new ByteReader(packet);
    in.lenencString("column catalog");
    in.lenencString("column schema");
    in.lenencString("column table");
    in.lenencString("column org_table");
    return in.lenencString("column name");
  }

  private static List<String> row(byte[] packet, int columns) {
    ByteReader in = new ByteReader(packet);
    List<String> values = new ArrayList<>(columns);
    for (int i = 0; i < columns; i++) {
      in.require(1, "value of column " + (i + 1));
      if ((packet[in.arrayOffset()] & 0xff) == NULL_VALUE) {
        in.skip(1, "NULL value");
        values.add(null);
      } else {
        values.add(in.lenencString("value of column " + (i + 1)));
      }
    }
    if (in.hasRemaining()) {
      throw new ProtocolException(
          "row of " + columns + " columns has " + in.remaining() + " bytes left over");
    }
    return values;
  }
}
