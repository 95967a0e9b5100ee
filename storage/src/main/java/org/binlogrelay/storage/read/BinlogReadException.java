package org.binlogrelay.storage.read;

import java.util.Objects;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreException;

/**
 * A reader cannot go on from where it stands: the bytes it would hand out are not the binlog the
 * store vouches for. The reader is then unusable; the replica must reconnect and be positioned
 * again (by GTID, or with a position the lookup checks). Never thrown for a mere wait: a reader
 * that has nothing to read returns {@link CaughtUp}.
 */
public final class BinlogReadException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** What went wrong. */
  public enum Reason {
    /** The file on disk is shorter than the reader's position or than the store says it is. */
    TRUNCATED,
    /**
     * The file's name now refers to another file than the one the reader opened (removed and
     * recreated).
     */
    REPLACED,
    /** The file, or the next file the reader must continue with, is no longer stored (purged). */
    REMOVED,
    /**
     * The bytes at the reader's position are not an event: a size or log_pos that cannot be right,
     * or an event that runs past the readable boundary. Also what a position inside an event leads
     * to.
     */
    CORRUPT
  }

  private final Reason reason;
  private final transient Position position;

  public BinlogReadException(Reason reason, Position position, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.position = position;
  }

  public BinlogReadException(Reason reason, Position position, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.position = position;
  }

  public Reason reason() {
    return reason;
  }

  /** Where the problem is: the reader's position or the offending event's. */
  public Position position() {
    return position;
  }
}
