package org.binlogrelay.storage;

/**
 * The store's directory is inconsistent in a way recovery will not repair on its own because
 * repairing it would drop data that may be needed (a file missing from the middle of the index,
 * metadata of another flavour, two index files). The message names the file and what an operator
 * can do.
 */
public final class StoreCorruptException extends StoreException {
  private static final long serialVersionUID = 1L;

  public StoreCorruptException(String message) {
    super(message);
  }
}
