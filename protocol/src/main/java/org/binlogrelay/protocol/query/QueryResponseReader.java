package org.binlogrelay.protocol.query;

import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.packet.EofPacket;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;

/**
 * Reads the answer to one COM_QUERY packet by packet, client side (test clients and the transcript
 * recorder): an OK, an ERR, or a text result set in either EOF style. A small state machine:
 *
 * <pre>
 *   FIRST -- OK / ERR --------------------------------------------------> DONE
 *   FIRST -- column count n --> COLUMNS (n definitions) --> [EOF] --> ROWS -- EOF / OK(0xFE) / ERR --> DONE
 * </pre>
 *
 * Hard limits: at most {@code maxColumns} columns and {@code maxRows} rows. Not thread-safe.
 */
public final class QueryResponseReader {
  private enum State {
    FIRST,
    COLUMNS,
    COLUMNS_EOF,
    ROWS,
    DONE
  }

  private final boolean deprecateEof;
  private final boolean extendedMetadata;
  private final int maxColumns;
  private final int maxRows;
  private final List<ColumnDefinition> columns = new ArrayList<>();
  private final List<List<String>> rows = new ArrayList<>();
  private State state = State.FIRST;
  private int columnCount;
  private QueryResponse response;

  public QueryResponseReader(boolean deprecateEof, int maxColumns, int maxRows) {
    this(deprecateEof, false, maxColumns, maxRows);
  }

  /**
   * @param deprecateEof whether CLIENT_DEPRECATE_EOF was negotiated
   * @param mariadbExtendedMetadata whether MariaDB's MARIADB_CLIENT_EXTENDED_METADATA was
   *     negotiated
   * @param maxColumns the most columns accepted
   * @param maxRows the most rows accepted
   */
  public QueryResponseReader(
      boolean deprecateEof, boolean mariadbExtendedMetadata, int maxColumns, int maxRows) {
    this.deprecateEof = deprecateEof;
    this.extendedMetadata = mariadbExtendedMetadata;
    this.maxColumns = maxColumns;
    this.maxRows = maxRows;
  }

  /**
   * Feeds the next packet's payload; returns true once the response is complete ({@link
   * #response()}).
   */
  public boolean accept(byte[] payload) {
    switch (state) {
      case FIRST:
        first(payload);
        break;
      case COLUMNS:
        columns.add(ColumnDefinition.decode(payload, extendedMetadata));
        if (columns.size() == columnCount) {
          state = deprecateEof ? State.ROWS : State.COLUMNS_EOF;
        }
        break;
      case COLUMNS_EOF:
        if (!EofPacket.isEof(payload)) {
          throw new ProtocolException(
              "result set: expected EOF after " + columnCount + " column definitions");
        }
        state = State.ROWS;
        break;
      case ROWS:
        row(payload);
        break;
      default:
        throw new IllegalStateException("response already complete");
    }
    return state == State.DONE;
  }

  public QueryResponse response() {
    if (state != State.DONE) {
      throw new IllegalStateException("response not complete (state " + state + ")");
    }
    return response;
  }

  private void first(byte[] payload) {
    if (ErrPacket.isErr(payload)) {
      finish(new QueryResponse.Err(ErrPacket.decode(payload)));
    } else if (OkPacket.isOk(payload)) {
      finish(new QueryResponse.Ok(OkPacket.decode(payload)));
    } else {
      long n = new ByteReader(payload).lenencInt("result set column count");
      if (n < 1 || n > maxColumns) {
        throw new ProtocolException("result set: " + n + " columns, limit " + maxColumns);
      }
      columnCount = (int) n;
      state = State.COLUMNS;
    }
  }

  private void row(byte[] payload) {
    if (ErrPacket.isErr(payload)) {
      finish(new QueryResponse.Err(ErrPacket.decode(payload)));
      return;
    }
    if (payload.length > 0
        && (payload[0] & 0xff) == 0xfe
        && payload.length < 0xffffff
        && (deprecateEof ? payload.length >= 7 : EofPacket.isEof(payload))) {
      finish(new QueryResponse.Rows(new TextResultSet(columns, rows)));
      return;
    }
    if (rows.size() >= maxRows) {
      throw new ProtocolException("result set: more than " + maxRows + " rows");
    }
    ByteReader in = new ByteReader(payload);
    List<String> row = new ArrayList<>(columnCount);
    for (int i = 0; i < columnCount; i++) {
      if (in.hasRemaining() && (payload[in.arrayOffset()] & 0xff) == 0xfb) {
        in.skip(1, "NULL value");
        row.add(null);
      } else {
        row.add(in.lenencString("row value " + i));
      }
    }
    rows.add(row);
  }

  private void finish(QueryResponse r) {
    response = r;
    state = State.DONE;
  }
}
