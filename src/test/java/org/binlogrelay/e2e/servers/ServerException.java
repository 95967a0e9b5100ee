package org.binlogrelay.e2e.servers;

/**
 * A server of the harness failed to start, stop, answer SQL or replicate. The message says which
 * server and why.
 */
public class ServerException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public ServerException(String message) {
    super(message);
  }

  public ServerException(String message, Throwable cause) {
    super(message, cause);
  }
}
