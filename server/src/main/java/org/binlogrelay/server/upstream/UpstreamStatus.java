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
  /** Stopped on request. */
  STOPPED,
  /** Stopped by an error that reconnecting cannot cure; {@link UpstreamState#lastError()} says which. */
  FAILED
}
