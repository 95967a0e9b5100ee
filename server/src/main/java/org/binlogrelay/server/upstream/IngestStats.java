package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Map;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.storage.ContinuityException;
import org.binlogrelay.storage.StoreException;

/**
 * What the upstream stream last received, for lag and the admin API: the newest transaction's GTID
 * and commit times, whether the last thing received was a heartbeat, and the failures by kind.
 * Immutable snapshot taken by {@link UpstreamReplicator#ingestStats()}; times from the replicator's
 * {@code Time}.
 *
 * <p>Seconds behind the source ({@link #secondsBehind}) is computed as a DBA reads {@code
 * Seconds_Behind_Source}: 0 when the last thing received was a heartbeat (the primary's dump thread
 * only sends one when it has nothing else to send: the relay has everything), otherwise now minus
 * the commit time of the newest transaction received. That commit time is the one MySQL 8.0+ writes
 * in the GTID event (microseconds), else the GTID event's header timestamp (seconds: MariaDB, or a
 * primary without commit timestamps).
 *
 * @param lastGtid the newest transaction's GTID as the server prints it, {@code null} before one
 * @param immediateCommitMicros the newest transaction's commit time on the server the relay follows
 *     (immediate_commit_timestamp), epoch microseconds; 0 if unknown
 * @param originalCommitMicros its commit time on the server where it originated
 *     (original_commit_timestamp); 0 if unknown
 * @param transactionTimestamp the header timestamp (epoch seconds) of the newest transaction's GTID
 *     event, 0 before one
 * @param lastEventTimestamp the header timestamp of the last event received that is not a
 *     heartbeat, 0 before one
 * @param lastWasHeartbeat whether the last event received was a heartbeat
 * @param failures failed connections and streams by kind ({@link FailureKind})
 */
public record IngestStats(
    String lastGtid,
    long immediateCommitMicros,
    long originalCommitMicros,
    long transactionTimestamp,
    long lastEventTimestamp,
    boolean lastWasHeartbeat,
    Map<FailureKind, Long> failures) {

  public IngestStats {
    failures = Map.copyOf(failures);
  }

  /**
   * Seconds the relay is behind its source, or {@code null} when it does not know (not streaming,
   * or nothing received yet), like MySQL's NULL.
   *
   * @param streaming whether the replicator is streaming now
   * @param nowMillis the wall clock
   * @param original measure against the originating server's commit time instead of the immediate
   *     source's
   */
  public Double secondsBehind(boolean streaming, long nowMillis, boolean original) {
    if (!streaming) {
      return null;
    }
    if (lastWasHeartbeat) {
      return 0.0;
    }
    long micros =
        original && originalCommitMicros > 0 ? originalCommitMicros : immediateCommitMicros;
    if (micros <= 0) {
      micros = transactionTimestamp * 1_000_000L;
    }
    if (micros <= 0) {
      return null;
    }
    return Math.max(0, nowMillis * 1000L - micros) / 1e6;
  }

  /** What went wrong with a connection, coarsely, for the errors metric. */
  public enum FailureKind {
    /** The primary sent an error (1236: purged binlog, access denied, ...). */
    PRIMARY_ERROR,
    /** No event or heartbeat within the dead-connection timeout, or a connect timeout. */
    TIMEOUT,
    /** The connection failed or closed. */
    NETWORK,
    /** A malformed packet or event, a bad checksum. */
    PROTOCOL,
    /** An event did not continue the store. */
    CONTINUITY,
    /** The store failed. */
    STORE,
    /** Anything else. */
    OTHER;

    /** The kind of {@code failure}. */
    static FailureKind of(Throwable failure) {
      if (failure instanceof PrimaryErrorException) {
        return PRIMARY_ERROR;
      }
      if (failure instanceof SocketTimeoutException) {
        return TIMEOUT;
      }
      if (failure instanceof ContinuityException) {
        return CONTINUITY;
      }
      if (failure instanceof ProtocolException) {
        return PROTOCOL;
      }
      if (failure instanceof FatalUpstreamException || failure instanceof StoreException) {
        return STORE;
      }
      if (failure instanceof IOException) {
        return NETWORK;
      }
      return OTHER;
    }
  }
}
