package org.binlogrelay.storage;

/**
 * Thrown by {@link BinlogStore#append} and {@link BinlogStore#startStream()} while the store is
 * {@link StoreCondition#DISK_FULL} or {@link StoreCondition#IO_ERROR}. The message says what
 * failed, where, and what to do; {@link #getCause()} is the error that stopped the store. Nothing
 * was written. Once the condition clears, {@link BinlogStore#tryResume()} returns the store to
 * accepting, and the writer restarts its stream from {@link BinlogStore#startStream()}.
 */
public final class StoreUnavailableException extends StoreFailedException {
  private static final long serialVersionUID = 1L;

  private final StoreCondition condition;

  public StoreUnavailableException(StoreCondition condition, String message, Throwable cause) {
    super(message, cause);
    this.condition = condition;
  }

  /** {@link StoreCondition#DISK_FULL} or {@link StoreCondition#IO_ERROR}. */
  public StoreCondition condition() {
    return condition;
  }
}
