package org.binlogrelay.storage;

/** Base of the store's unchecked errors; I/O failures are {@link java.io.IOException}s. */
public class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
