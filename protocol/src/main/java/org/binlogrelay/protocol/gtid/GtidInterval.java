package org.binlogrelay.protocol.gtid;

/**
 * A closed range {@code [start, end]} of MySQL transaction numbers, both ends included, printed the
 * way MySQL prints one element of an interval list: {@code 7} for a single number, {@code 1-5}
 * otherwise. (The binary encoding stores the end exclusively; that conversion stays inside the
 * codec.)
 *
 * <p>Immutable and thread-safe.
 *
 * @param start the first transaction number, 1 to {@link MysqlGtid#MAX_GNO}
 * @param end the last transaction number, {@code start} to {@link MysqlGtid#MAX_GNO}
 */
public record GtidInterval(long start, long end) {

  public GtidInterval {
    if (start < 1 || start > MysqlGtid.MAX_GNO) {
      throw new IllegalArgumentException(
          "interval start " + start + " outside 1.." + MysqlGtid.MAX_GNO);
    }
    if (end < start || end > MysqlGtid.MAX_GNO) {
      throw new IllegalArgumentException(
          "interval end " + end + " outside " + start + ".." + MysqlGtid.MAX_GNO);
    }
  }

  /** The interval holding the single number {@code gno}. */
  public static GtidInterval of(long gno) {
    return new GtidInterval(gno, gno);
  }

  /** How many transaction numbers the interval holds. */
  public long count() {
    return end - start + 1;
  }

  public boolean contains(long gno) {
    return gno >= start && gno <= end;
  }

  @Override
  public String toString() {
    return start == end ? Long.toString(start) : start + "-" + end;
  }
}
