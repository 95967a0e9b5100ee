package org.binlogrelay.server.serving;

/**
 * One dump being served, as seen from outside (metrics, admin API, tests). Immutable snapshot.
 *
 * @param name the dump's name (replica server_id and address), as in logs and the reader registry
 * @param state what the stream is doing
 * @param file the file the stream stands in, empty before it started
 * @param position how far the stream has read in it
 * @param eventsSent events of the stored binlog sent so far
 * @param bytesSent bytes of those events
 * @param heartbeatsSent heartbeats sent so far
 */
public record DumpStatus(String name, State state, String file, long position, long eventsSent, long bytesSent,
    long heartbeatsSent) {

  /** What a stream is doing. */
  public enum State {
    /** Looking for its start, or waiting for the store to reach it. */
    STARTING,
    /** Sending what is readable. */
    SENDING,
    /** Sent everything readable; waiting for the store (heartbeats go out). */
    CAUGHT_UP,
    /** Its replica stopped reading: the channel is not writable. */
    BLOCKED,
    /** Ended. */
    CLOSED
  }
}
