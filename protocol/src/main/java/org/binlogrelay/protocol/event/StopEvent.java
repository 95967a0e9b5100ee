package org.binlogrelay.protocol.event;

/**
 * STOP (3): the server shut down cleanly; the last event of its binlog file. The body is empty (a
 * v4 post-header of length 0), so this type only confirms the event's type. Immutable.
 *
 * @param timestamp when the server stopped (seconds since the epoch)
 */
public record StopEvent(long timestamp) {

  public static StopEvent parse(BinlogEvent event) {
    EventBody.requireType(event, EventType.STOP);
    return new StopEvent(event.header().timestamp());
  }
}
