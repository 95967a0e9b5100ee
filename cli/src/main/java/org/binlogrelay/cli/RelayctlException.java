package org.binlogrelay.cli;

/**
 * A command that could not be done, with the exit code it ends relayctl with ({@link
 * Relayctl#RELAY_ERROR}, {@link Relayctl#USAGE}, {@link Relayctl#UNREACHABLE}, {@link
 * Relayctl#UNAUTHORIZED}) and a one-line message for standard error (without the {@code relayctl: }
 * prefix). Never carries the bearer token.
 */
final class RelayctlException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  RelayctlException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
