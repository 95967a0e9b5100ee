package org.binlogrelay.archive.upload;

import java.time.Instant;

/**
 * What the uploader is doing, for the admin API and {@code relayctl status}: its state, the file at
 * hand, and the last failure with advice. Immutable.
 *
 * @param state {@link State#OK}, deferred for a catch-up, retrying, failing, or stopped by a
 *     conflict
 * @param currentFile the file being uploaded, or {@code null}
 * @param lastFailureKind the kind of the last failure, or {@code null} if none since the last
 *     success
 * @param lastError the last failure's message (what, where), or {@code null}
 * @param advice what to do about it (while {@link State#DEFERRED}: why uploads wait), or {@code
 *     null}
 * @param lastErrorAt when it happened, or {@code null}
 * @param nextAttempt when the next attempt is due while retrying or failing, or {@code null}
 */
public record UploadStatus(
    State state,
    String currentFile,
    FailureKind lastFailureKind,
    String lastError,
    String advice,
    Instant lastErrorAt,
    Instant nextAttempt) {

  /** The uploader's state. */
  public enum State {
    /** Uploading or idle, no failure since the last success. */
    OK,
    /**
     * Waiting while the relay catches up its primary ({@link CatchUpDeferral}); the advice says how
     * far behind it is and when uploads resume.
     */
    DEFERRED,
    /** A retryable failure (unreachable, timeout, 5xx, checksum): backing off, retrying. */
    RETRYING,
    /** A failure that needs an operator (403, no bucket, refused): retried slowly. */
    FAILING,
    /** The archive holds other bytes under a file's name: archiving stopped (see the advice). */
    CONFLICT,
    /** Not started, or stopped. */
    STOPPED
  }

  static UploadStatus of(State state) {
    return new UploadStatus(state, null, null, null, null, null, null);
  }

  UploadStatus working(String file) {
    return new UploadStatus(
        state, file, lastFailureKind, lastError, advice, lastErrorAt, nextAttempt);
  }
}
