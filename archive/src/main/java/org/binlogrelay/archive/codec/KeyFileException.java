package org.binlogrelay.archive.codec;

/**
 * An archive key file, key id or decryption-keys directory that cannot be used; the message names
 * the file and what to do. A configuration error, raised when the relay starts.
 */
public final class KeyFileException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  KeyFileException(String message) {
    super(message);
  }

  KeyFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
