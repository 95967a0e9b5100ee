package org.binlogrelay.server.downstream.sql;

import java.util.Map;
import java.util.Objects;

/**
 * The relay's own replication from its primary, as {@code SHOW REPLICA STATUS} / {@code SHOW SLAVE
 * STATUS} and {@code performance_schema.replication_connection_*} report it: a snapshot taken when
 * a statement asks, by whoever composes the relay ({@link ReplicationSource}). Immutable.
 *
 * @param host the primary's host as configured
 * @param port its port
 * @param user the account the relay logs in with
 * @param io what the connection to the primary does
 * @param storeAccepting whether the store accepts writes (the relay's "applier": what it receives
 *     it writes to the binlog it serves)
 * @param storeError why the store stopped accepting writes, empty if it accepts them
 * @param sourceFile the primary's binlog file the stream stands in, empty before the first event
 * @param sourcePosition the primary's position the stream continues from, 0 before the first event
 * @param relayFile the relay's own binlog file that holds the newest event, empty when the store is
 *     empty
 * @param relayPosition the readable end of that file
 * @param relayBytes the bytes of all stored files
 * @param sourceServerId the primary's server_id, 0 before the first connection
 * @param sourceUuid the primary's server_uuid (MySQL), empty if unknown
 * @param retrievedGtids the GTIDs received and stored, in the flavour's text (MySQL {@code
 *     uuid:1-5}, MariaDB the newest per domain)
 * @param executedGtids the GTIDs in the binlog the relay serves (the same transactions, once
 *     written)
 * @param secondsBehind seconds behind the primary, null when unknown (not streaming)
 * @param lastIoErrno the error number of the last failure, 0 if none
 * @param lastIoError the text of the last failure, empty if none
 * @param lastIoErrorMillis when it happened, 0 if none
 * @param connectRetrySeconds the first delay before reconnecting
 * @param heartbeatPeriodSeconds the heartbeat period asked of the primary
 * @param heartbeats heartbeats received
 * @param lastHeartbeatMillis when the last event or heartbeat arrived, 0 before one
 * @param tlsAllowed whether the relay may use TLS to the primary
 * @param tlsVerify whether it verifies the primary's certificate
 * @param tlsCa the CA file it verifies with, empty if none
 * @param tlsCert the client certificate file, empty if none
 * @param tlsKey the client key file, empty if none
 * @param tlsVersion the current connection's TLS protocol, empty over plain TCP
 * @param tlsCipher the current connection's cipher suite, empty over plain TCP
 * @param autoPosition whether the relay positions by GTID (after a source switch) rather than file
 *     and offset
 * @param semiSync whether the current connection acknowledges semi-synchronous transactions
 * @param lastGtid the newest transaction's GTID, empty before one
 * @param lastOriginalCommitMicros its original commit time, epoch microseconds, 0 if unknown
 * @param lastImmediateCommitMicros its immediate commit time, epoch microseconds, 0 if unknown
 * @param transactions transactions received and stored
 * @param events events received and stored
 * @param primaryVariables the primary's binlog and replication variables, read at each connection
 *     (name in lower case to value); empty before the first connection
 */
public record SourceStatus(
    String host,
    int port,
    String user,
    IoState io,
    boolean storeAccepting,
    String storeError,
    String sourceFile,
    long sourcePosition,
    String relayFile,
    long relayPosition,
    long relayBytes,
    long sourceServerId,
    String sourceUuid,
    String retrievedGtids,
    String executedGtids,
    Double secondsBehind,
    int lastIoErrno,
    String lastIoError,
    long lastIoErrorMillis,
    long connectRetrySeconds,
    double heartbeatPeriodSeconds,
    long heartbeats,
    long lastHeartbeatMillis,
    boolean tlsAllowed,
    boolean tlsVerify,
    String tlsCa,
    String tlsCert,
    String tlsKey,
    String tlsVersion,
    String tlsCipher,
    boolean autoPosition,
    boolean semiSync,
    String lastGtid,
    long lastOriginalCommitMicros,
    long lastImmediateCommitMicros,
    long transactions,
    long events,
    Map<String, String> primaryVariables) {

  /** What the relay's connection to its primary does, as the replica's I/O thread reports it. */
  public enum IoState {
    /** Opening a connection (handshake to dump request). Replica_IO_Running: Connecting. */
    CONNECTING,
    /** Receiving the dump stream. Replica_IO_Running: Yes. */
    STREAMING,
    /** Waiting before the next attempt after a failure. Replica_IO_Running: Connecting. */
    RECONNECTING,
    /** Disconnected until the store accepts writes again. Replica_IO_Running: No. */
    WAITING_FOR_STORE,
    /** Stopped on request. Replica_IO_Running: No. */
    STOPPED,
    /** Stopped by an error reconnecting cannot cure. Replica_IO_Running: No. */
    FAILED
  }

  public SourceStatus {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(io, "io");
    primaryVariables = Map.copyOf(primaryVariables);
  }
}
