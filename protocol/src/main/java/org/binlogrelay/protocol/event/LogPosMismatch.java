package org.binlogrelay.protocol.event;

/**
 * An event whose header log_pos is not where it ends in its file. In a binlog a server wrote, every
 * event's log_pos is its end offset; a relay that serves files must keep that continuity, so a
 * mismatch is reported rather than silently accepted. Immutable.
 *
 * @param offset where the event starts
 * @param typeName the event's type
 * @param expected its end offset
 * @param actual the header's log_pos
 */
public record LogPosMismatch(long offset, String typeName, long expected, long actual) {

  @Override
  public String toString() {
    return typeName
        + " event at offset "
        + offset
        + " has log_pos "
        + actual
        + ", expected "
        + expected;
  }
}
