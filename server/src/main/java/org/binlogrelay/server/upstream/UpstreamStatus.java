package org.binlogrelay.server.upstream;

/** What the upstream replicator is doing. */
public enum UpstreamStatus {
  /** Not started yet. */
  NEW,
  /** Opening a connection: handshake, authentication, session set-up, registration, dump request. */
  CONNECTING,
  /** Receiving the primary's dump stream and appending it to the store. */
  STREAMING,
  /** The last connection failed; waiting before the next attempt. */
  BACKING_OFF,
  /**
   * The store stopped accepting writes (disk full, I/O error): no connection is open; the replicator retries
   * {@code BinlogStore.tryResume()} until the condition clears, then reconnects where the store ends.
   */
  WAITING_FOR_STORE,
  /** Stopped on request. */
  STOPPED,
  /** Stopped by an error that reconnecting cannot cure; {@link UpstreamState#lastError()} says which. */
  FAILED
}
