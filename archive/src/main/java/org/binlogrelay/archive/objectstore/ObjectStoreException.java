package org.binlogrelay.archive.objectstore;

/**
 * An object-storage call that failed, classified so that the archive can decide to retry, to stop
 * and say what to do, or to report a conflict. The message names the operation, the key and, where
 * it helps, what the operator should check. Unchecked: every {@link ObjectStore} call may throw it.
 */
public final class ObjectStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What kind of failure; {@link #retryable()} says whether trying again may help. */
  public enum Kind {
    /** The endpoint could not be reached (connection refused, unknown host, reset). */
    UNREACHABLE(true),
    /** No answer in time (connect, request or read timeout; a stalled server). */
    TIMEOUT(true),
    /** The server failed (5xx, SlowDown). */
    SERVER_ERROR(true),
    /** The credentials were refused (403) or missing: the message names the permission needed. */
    ACCESS_DENIED(false),
    /** The bucket does not exist. */
    NO_BUCKET(false),
    /** The server refused the bytes' checksum (BadDigest), or an ETag did not match. */
    CHECKSUM(true),
    /** The object or upload is not there (a vanished multipart upload, a deleted key). */
    NOT_FOUND(false),
    /** Any other refusal (4xx): a bug or an unsupported server; the message carries its code. */
    REJECTED(false);

    private final boolean retryable;

    Kind(boolean retryable) {
      this.retryable = retryable;
    }

    /** Whether the same call may succeed later without anyone acting. */
    public boolean retryable() {
      return retryable;
    }
  }

  private final Kind kind;

  public ObjectStoreException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public ObjectStoreException(Kind kind, String message) {
    this(kind, message, null);
  }

  public Kind kind() {
    return kind;
  }
}
