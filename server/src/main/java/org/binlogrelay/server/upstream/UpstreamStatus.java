package org.binlogrelay.server.upstream;

/** What the upstream replicator is doing. */
public enum UpstreamStatus {
  /** Not started yet. */
  NEW,
  /**
   * Opening a connection: handshake, authentication, session set-up, registration, dump request.
   */
  CONNECTING,
  /** Receiving the primary's dump stream and appending it to the store. */
  STREAMING,
  /**
   * The last connection failed; waiting before the next attempt ({@link ReconnectSchedule} says how
   * long).
   */
  BACKING_OFF,
  /**
   * The store stopped accepting writes (disk full, I/O error): no connection is open; the
   * replicator retries {@code BinlogStore.tryResume()} until the condition clears, then reconnects
   * where the store ends.
   */
  WAITING_FOR_STORE,
  /** Stopped on request. */
  STOPPED,
  /**
   * Stopped by an error that reconnecting cannot cure, or by the same deterministic failure on
   * {@link FailurePolicy#MAX_IDENTICAL_FAILURES} connections in a row without progress ({@link
   * ReconnectSchedule}); {@link UpstreamState#lastError()} says which. Final: a new replicator
   * starts again.
   */
  FAILED
}
