package org.binlogrelay.server.upstream;

/**
 * A failure that reconnecting cannot cure: the relay's configuration does not fit the primary (same
 * server_id, other flavour than the store), the store failed, or the start cannot be expressed. The
 * replicator stops in {@link UpstreamStatus#FAILED} with this message.
 */
final class FatalUpstreamException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  FatalUpstreamException(String message) {
    super(message);
  }

  FatalUpstreamException(String message, Throwable cause) {
    super(message, cause);
  }
}
