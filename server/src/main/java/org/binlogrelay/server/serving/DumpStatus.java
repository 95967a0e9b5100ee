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
 * @param id the connection id of the dump's connection: stable while it lasts, unique in the
 *     relay's life
 * @param replica who the replica is
 * @param sentFile the file of the last stored event handed to the replica's socket, empty before
 *     one
 * @param sentPosition the end of that event: the replica has (or is about to receive) everything
 *     before it
 * @param transactionsSent transactions whose first event (the GTID event) was sent
 * @param stalls how many times the connection became unwritable (the replica read slower than the
 *     relay sent)
 * @param paused whether the feed is paused ({@link StoreDumpHandler#pause})
 */
public record DumpStatus(
    String name,
    State state,
    String file,
    long position,
    long eventsSent,
    long bytesSent,
    long heartbeatsSent,
    long id,
    Replica replica,
    String sentFile,
    long sentPosition,
    long transactionsSent,
    long stalls,
    boolean paused) {

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
    /** Paused through the admin API: nothing is sent, not even heartbeats. */
    PAUSED,
    /** Ended. */
    CLOSED
  }

  /**
   * Who a dump's replica is.
   *
   * @param serverId the server_id of its dump request
   * @param host the address it connected from
   * @param user the account it logged in with
   * @param uuid its {@code @replica_uuid} / {@code @slave_uuid}, empty if unset
   * @param reportHost the host it registered with (COM_REGISTER_SLAVE), empty if none
   * @param reportPort the port it registered with, 0 if none
   * @param gtid whether it asked by GTID (MySQL's COM_BINLOG_DUMP_GTID, MariaDB's
   *     {@code @slave_connect_state}) rather than by file and position
   * @param connectedAtMillis when the dump started, epoch milliseconds
   */
  public record Replica(
      long serverId,
      String host,
      String user,
      String uuid,
      String reportHost,
      int reportPort,
      boolean gtid,
      long connectedAtMillis) {}
}
