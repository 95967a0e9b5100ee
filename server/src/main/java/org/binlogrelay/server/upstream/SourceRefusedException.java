package org.binlogrelay.server.upstream;

/**
 * {@link UpstreamReplicator#switchSource} did not switch: the new source cannot continue the store
 * (its executed GTIDs lack transactions the relay stored, it is of the other flavour, it has the
 * relay's server_id) or could not be asked. The replicator goes on with the source it had. The
 * message says which and what to do.
 */
public final class SourceRefusedException extends Exception {
  private static final long serialVersionUID = 1L;

  SourceRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
