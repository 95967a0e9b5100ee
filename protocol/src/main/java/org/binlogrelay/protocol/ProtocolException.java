package org.binlogrelay.protocol;

/**
 * Bytes that do not follow the MySQL wire or binlog format: a length past the end of its buffer, a
 * field over a limit, a bad checksum. The message says what was wrong and where, so the caller can
 * log it and drop the connection or truncate the file; it never means "skip and continue".
 */
public class ProtocolException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ProtocolException(String message) {
    super(message);
  }

  public ProtocolException(String message, Throwable cause) {
    super(message, cause);
  }
}
