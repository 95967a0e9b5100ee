package org.binlogrelay.protocol.event;

import org.binlogrelay.protocol.ProtocolException;

/**
 * An event that cannot be taken as written: cut short, failing its checksum, larger than allowed,
 * or with an impossible header. Carries the offset where the bad event starts, which is also how
 * far the bytes before it are valid: what a recovery truncates to.
 */
public final class CorruptEventException extends ProtocolException {
  private static final long serialVersionUID = 1L;

  /** What is wrong with the event. */
  public enum Reason {
    /** The bytes end before the event does. */
    TRUNCATED,
    /** The stored CRC32 does not match the event's bytes. */
    CHECKSUM_MISMATCH,
    /** event_size is over the configured maximum. */
    TOO_LARGE,
    /**
     * The header or a FORMAT_DESCRIPTION event cannot be right (size below the header, bad magic,
     * ...).
     */
    MALFORMED
  }

  private final long offset;
  private final Reason reason;

  public CorruptEventException(Reason reason, long offset, String message) {
    super(message);
    this.reason = reason;
    this.offset = offset;
  }

  public CorruptEventException(Reason reason, long offset, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
    this.offset = offset;
  }

  /** Offset of the start of the bad event (or of the file, for a bad magic number). */
  public long offset() {
    return offset;
  }

  public Reason reason() {
    return reason;
  }
}
