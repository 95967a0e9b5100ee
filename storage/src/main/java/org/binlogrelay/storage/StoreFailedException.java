package org.binlogrelay.storage;

/**
 * The store stopped accepting writes after an I/O error (disk full, EIO, ...). What was complete and durable
 * stays; close the store and open it again to recover (which cuts any partial bytes) and resume. The cause
 * is the first error.
 */
public final class StoreFailedException extends StoreException {
  private static final long serialVersionUID = 1L;

  public StoreFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
