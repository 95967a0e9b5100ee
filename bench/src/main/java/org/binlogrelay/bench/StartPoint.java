package org.binlogrelay.bench;

import org.binlogrelay.bench.stream.BinlogPosition;

/**
 * Where a dump starts: a file position, or after a GTID set (MySQL) / GTID position (MariaDB).
 * Immutable.
 *
 * @param position the file position, or {@code null}
 * @param gtids the GTIDs the client already has, or {@code null}
 */
public record StartPoint(BinlogPosition position, String gtids) {
  public StartPoint {
    if ((position == null) == (gtids == null)) {
      throw new IllegalArgumentException(
          "a start is a file position or a GTID set, exactly one of them");
    }
  }

  @Override
  public String toString() {
    return position != null ? position.toString() : "after GTIDs '" + gtids + "'";
  }
}
