package org.binlogrelay.storage;

/**
 * The store does not accept writes after an I/O error (disk full, EIO, ...). What was complete
 * stays. The cause is the error that stopped the store. Thrown as {@link
 * StoreUnavailableException}, which says whether the disk is full and what to do; {@link
 * BinlogStore#tryResume()} returns the store to accepting once the condition clears (closing and
 * opening the store again does too).
 */
public class StoreFailedException extends StoreException {
  private static final long serialVersionUID = 1L;

  public StoreFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
