package org.binlogrelay.server.upstream;

import java.io.IOException;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.storage.ContinuityException;
import org.binlogrelay.storage.StoreException;

/**
 * Decides whether a failed connection is retried or stops the replicator. Reconnecting cures what belongs to
 * one connection: network errors, a dead or killed connection, a corrupt or malformed packet (nothing of it
 * was stored; the next connection resumes where the store ends), most server errors. It cannot cure:
 *
 * <ul>
 *   <li>error 1236 from the primary (the binlog the relay needs is purged, or the position is impossible) and
 *       1381 (binary logging is off);
 *   <li>a {@link FatalUpstreamException}: same server_id as the primary, another flavour than the store, a
 *       failed store, a primary whose executed GTIDs lack some of the store's ({@link ResumePlan}), a primary
 *       without TLS where the TLS mode requires it, a TLS certificate the mode refuses;
 *   <li>a store that failed or found corruption ({@link StoreException} other than continuity);
 *   <li>a continuity error ({@link ContinuityException}: the primary's binlog does not continue the stored one)
 *       that comes back {@link #MAX_CONTINUITY_FAILURES} times in a row without any progress: the primary's
 *       history is not the store's;
 *   <li>anything unexpected (a bug): stopping is safer than looping.
 * </ul>
 *
 * Stateless.
 */
final class FailurePolicy {
  /** Consecutive continuity failures without progress after which the replicator gives up. */
  static final int MAX_CONTINUITY_FAILURES = 3;

  private FailurePolicy() {}

  /**
   * @param failure what ended the connection
   * @param continuityFailures consecutive connections (this one included) that ended in a continuity error
   *     without writing anything
   * @return true to reconnect, false to stop in {@link UpstreamStatus#FAILED}
   */
  static boolean retry(Throwable failure, int continuityFailures) {
    if (failure instanceof PrimaryErrorException e) {
      return e.code() != PrimaryErrorException.FATAL_ERROR_READING_BINLOG
          && e.code() != PrimaryErrorException.NO_BINARY_LOGGING;
    }
    if (failure instanceof ContinuityException) {
      return continuityFailures < MAX_CONTINUITY_FAILURES;
    }
    if (failure instanceof FatalUpstreamException || failure instanceof StoreException) {
      return false;
    }
    return failure instanceof IOException || failure instanceof ProtocolException;
  }
}
