package org.binlogrelay.server;

/**
 * The relay could not start; the message says what failed, where, and what to do. Whatever had been
 * started is stopped again before this is thrown.
 */
public final class RelayStartException extends Exception {
  private static final long serialVersionUID = 1L;

  public RelayStartException(String message, Throwable cause) {
    super(message, cause);
  }

  public RelayStartException(String message) {
    super(message);
  }
}
