package org.binlogrelay.storage.pitr;

import org.binlogrelay.storage.Position;

/**
 * One complete transaction of a stored file with the time it committed. Immutable.
 *
 * @param file the file
 * @param start offset of its GTID event
 * @param end offset just after its last event (a transaction boundary)
 * @param gtid its GTID ({@code MysqlGtid} or {@code MariadbGtid}), {@code null} if anonymous
 * @param commitMicros commit time in microseconds since the epoch; whole seconds when {@code
 *     !exact}
 * @param exact true if the time is MySQL's {@code immediate_commit_timestamp}; false if it is the
 *     header timestamp (seconds) of the transaction's last event
 */
record CommittedTransaction(
    String file, long start, long end, Object gtid, long commitMicros, boolean exact) {

  /**
   * The latest microsecond the transaction may have committed at: its time, or the last microsecond
   * of its second when only the second is known.
   */
  long latestCommitMicros() {
    return exact ? commitMicros : commitMicros + 999_999;
  }

  Position endPosition() {
    return new Position(file, end);
  }

  Position startPosition() {
    return new Position(file, start);
  }

  @Override
  public String toString() {
    return (gtid == null ? "anonymous" : gtid.toString())
        + " at "
        + file
        + ":"
        + start
        + " committed "
        + StopPointFinder.instantOfMicros(commitMicros)
        + (exact ? "" : " (whole second)");
  }
}
