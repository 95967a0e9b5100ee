package org.binlogrelay.server.upstream;

import org.binlogrelay.storage.Position;

/**
 * A snapshot of the upstream replicator, for the admin API, metrics and tests. Times come from the
 * {@code Time} the replicator was given. Immutable.
 *
 * @param status what the replicator is doing
 * @param sinceMillis wall-clock time of the last status change
 * @param lastError the text of the last failure (kept after a successful reconnection), {@code
 *     null} if none
 * @param attempt failed connections since the stream last made progress (a transaction stored
 *     beyond the furthest point reached, see {@link ReconnectSchedule}); 0 while streaming
 * @param connections connections that reached {@link UpstreamStatus#STREAMING}
 * @param source the source it follows, {@code host:port} (after a switch: the new one)
 * @param primaryVersion the primary's version string from its last handshake, {@code null} before
 *     one
 * @param primaryServerId the primary's {@code server_id}, 0 before the first connection
 * @param tls the last connection's TLS protocol and cipher suite, {@code null} if it was plain TCP
 * @param bytesReceived bytes of binlog events received (every event of the dump stream, headers
 *     included)
 * @param eventsReceived events received, heartbeats and the primary's artificial events included
 * @param heartbeatsReceived heartbeat events received
 * @param transactionsReceived transactions the store completed
 * @param position where the stream stands (the primary's file and offset the next event continues
 *     from), {@code null} before the first event
 * @param lastEventMillis wall-clock time the last event (or heartbeat) arrived, 0 before the first
 * @param semiSync whether the current connection acknowledges semi-sync transactions
 * @param acksRequested events the primary flagged for acknowledgement, all connections
 * @param acksSent acknowledgements sent (after the store made them durable; several durable
 *     together make one)
 * @param lastAck the newest position acknowledged, in the primary's binlog coordinates; {@code
 *     null} if none
 */
public record UpstreamState(
    UpstreamStatus status,
    long sinceMillis,
    String lastError,
    int attempt,
    long connections,
    String source,
    String primaryVersion,
    long primaryServerId,
    String tls,
    long bytesReceived,
    long eventsReceived,
    long heartbeatsReceived,
    long transactionsReceived,
    Position position,
    long lastEventMillis,
    boolean semiSync,
    long acksRequested,
    long acksSent,
    Position lastAck) {

  @Override
  public String toString() {
    return status
        + " from "
        + source
        + (position == null ? "" : " at " + position)
        + ", "
        + eventsReceived
        + " events / "
        + bytesReceived
        + " bytes / "
        + transactionsReceived
        + " transactions received, "
        + connections
        + " connections"
        + (tls != null ? ", " + tls : "")
        + (semiSync ? ", semi-sync" : "")
        + (acksSent > 0 ? ", " + acksSent + " acks up to " + lastAck : "")
        + (attempt > 0 ? ", attempt " + attempt : "")
        + (lastError == null ? "" : ", last error: " + lastError);
  }
}
