package org.binlogrelay.archive.upload;

import org.binlogrelay.archive.objectstore.ObjectStoreException;

/**
 * Why an upload attempt failed, with what the operator should do: the object store's kinds ({@link
 * ObjectStoreException.Kind}) and {@link #LOCAL_IO} for the relay's own disk. Retryable kinds are
 * retried with back-off; the others are retried slowly and reported as failing.
 */
public enum FailureKind {
  UNREACHABLE(
      true,
      "check the archive endpoint, DNS and the network between the relay and it;"
          + " uploads resume by themselves"),
  TIMEOUT(true, "the object store is slow or stalled; uploads resume by themselves"),
  SERVER_ERROR(
      true, "the object store failed (5xx or SlowDown); uploads are retried with back-off"),
  ACCESS_DENIED(
      false,
      "grant the relay's credentials s3:PutObject, s3:GetObject, s3:ListBucket,"
          + " s3:AbortMultipartUpload and s3:ListMultipartUploadParts on the archive's prefix"),
  NO_BUCKET(false, "create the bucket or correct the archive URL"),
  CHECKSUM(
      true,
      "bytes were damaged on the way or the object's ETag did not match the local file;"
          + " the upload is redone"),
  NOT_FOUND(
      false,
      "an object or multipart upload vanished while in use (a lifecycle rule or another process"
          + " deleting under the prefix?); the upload starts over"),
  REJECTED(
      false,
      "the object store refused a request: check that it is S3-compatible and the message above"),
  LOCAL_IO(
      false, "reading the local binlog file or writing upload state failed: check the data disk");

  private final boolean retryable;
  private final String advice;

  FailureKind(boolean retryable, String advice) {
    this.retryable = retryable;
    this.advice = advice;
  }

  public boolean retryable() {
    return retryable;
  }

  /** What to do about it, one sentence. */
  public String advice() {
    return advice;
  }

  static FailureKind of(ObjectStoreException.Kind kind) {
    return valueOf(kind.name());
  }
}
