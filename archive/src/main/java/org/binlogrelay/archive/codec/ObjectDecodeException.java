package org.binlogrelay.archive.codec;

import java.io.IOException;

/**
 * An archived object that cannot be turned back into its binlog file's bytes, and why. The message
 * names the file, the key id or the chunk and its offset in the object, so an operator knows
 * whether to add a key or to distrust the object. Whatever the decoder wrote before the failure
 * must be thrown away.
 */
public final class ObjectDecodeException extends IOException {
  private static final long serialVersionUID = 1L;

  /** What went wrong. */
  public enum Kind {
    /** Not an object of this format or version, or its header is damaged. */
    BAD_HEADER,
    /** Encrypted with a key id the key ring does not hold. */
    UNKNOWN_KEY,
    /** The key ring's key of that id is not the key the object was encrypted with. */
    WRONG_KEY,
    /**
     * A chunk fails its check: damaged, or moved from another position or another file (the two
     * cannot be told apart, by design).
     */
    DAMAGED_CHUNK,
    /** The chunk index at the object's end is damaged or disagrees with the chunks. */
    DAMAGED_INDEX,
    /** The object ends too early (an interrupted or cut download or upload). */
    TRUNCATED,
    /** Bytes follow the end of the object's format. */
    TRAILING_BYTES,
    /** The plaintext's SHA-256 or length differ from what was recorded. */
    DIGEST_MISMATCH
  }

  private final Kind kind;

  ObjectDecodeException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  ObjectDecodeException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
