package org.binlogrelay.storage;

/**
 * An event from upstream that does not continue the stored binlog where it ends: a gap (the
 * primary's position is ahead of the store's), an overlap (behind it), another file than expected,
 * an event after a file's ROTATE that does not start the next file, or a malformed transaction.
 * Nothing of the event was written; the writer must reconnect (calling {@link
 * BinlogStore#startStream()} to learn where to resume).
 */
public final class ContinuityException extends StoreException {
  private static final long serialVersionUID = 1L;

  private final Position expected;

  public ContinuityException(Position expected, String message) {
    super(message);
    this.expected = expected;
  }

  public ContinuityException(Position expected, String message, Throwable cause) {
    super(message, cause);
    this.expected = expected;
  }

  /** Where the store expected the stream to be; {@code null} before the stream named its file. */
  public Position expected() {
    return expected;
  }
}
