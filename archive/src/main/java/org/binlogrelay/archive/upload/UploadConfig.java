package org.binlogrelay.archive.upload;

import java.time.Duration;
import java.util.Objects;

/**
 * How the {@link Uploader} uploads: where (the key prefix), who it says it is, when it uses
 * multipart, how it verifies and how it backs off. Immutable; the {@code with*} methods return
 * changed copies.
 *
 * @param prefix the archive's key prefix, empty or ending in '/'
 * @param uploadedBy written into each metadata object ({@code server_id@host} of the relay)
 * @param multipartThreshold files of at least this many bytes go multipart (16 MiB); the part size
 *     is {@code max(threshold, ceil(size / 9000))}. S3 and s3proxy refuse parts below 5 MiB but the
 *     last ({@code EntityTooSmall}, reported as a non-retryable REJECTED failure), so a relay
 *     option must not go below {@link #MIN_S3_PART_SIZE}; tests with a directory store use tiny
 *     values
 * @param verify how a completed object is checked against the local file
 * @param readBackOpaqueEtags with {@link Verify#ETAG}: when the server's ETag is not MD5-based
 *     (SSE-KMS, some S3-compatibles), read the object back and compare its SHA-256; false: accept
 *     an equal size (logged)
 * @param firstBackoff the first wait after a retryable failure (1 s), doubled per failure, with
 *     jitter
 * @param maxBackoff the longest wait after retryable failures (60 s)
 * @param slowRetry the wait after a failure that needs an operator (403, no bucket: 5 min)
 * @param idleCheck how often the uploader looks for work without being woken (60 s)
 * @param uploadDelay how long after its last event a file waits before its upload starts (0; e.g. 2
 *     minutes on the second of two relays sharing a prefix, so that it finds the first relay's
 *     upload and sends nothing)
 * @param maxUploadRate the most bytes per second the uploads send ({@link UploadRateLimiter}); 0
 *     (the default) is unlimited
 * @param deferral when uploads wait for the relay to catch up its primary ({@link
 *     CatchUpDeferral#DEFAULT}: while more than 10 s behind, for at most 4 GiB of files); it needs
 *     the relay's {@link IngestLag} ({@link Uploader#deferWhileCatchingUp})
 */
public record UploadConfig(
    String prefix,
    String uploadedBy,
    long multipartThreshold,
    Verify verify,
    boolean readBackOpaqueEtags,
    Duration firstBackoff,
    Duration maxBackoff,
    Duration slowRetry,
    Duration idleCheck,
    Duration uploadDelay,
    long maxUploadRate,
    CatchUpDeferral deferral) {

  /** The smallest part S3 accepts (but the last), 5 MiB. */
  public static final long MIN_S3_PART_SIZE = 5L << 20;

  /** The default multipart threshold, 16 MiB. */
  public static final long DEFAULT_MULTIPART_THRESHOLD = 16L << 20;

  /** How a completed data object is verified. */
  public enum Verify {
    /**
     * Compare its ETag with the local MD5 (single PUT) or MD5 of the part MD5s "-N" (multipart); an
     * ETag that is not MD5-based falls back to size and, if configured, a read-back.
     */
    ETAG,
    /** Read the whole object back and compare its SHA-256 (doubles the traffic). */
    READ_BACK
  }

  public UploadConfig {
    Objects.requireNonNull(prefix, "prefix");
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      throw new IllegalArgumentException("archive prefix '" + prefix + "' must end with '/'");
    }
    if (uploadedBy.isEmpty() || uploadedBy.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("uploadedBy must be one non-empty line: " + uploadedBy);
    }
    if (multipartThreshold < 1) {
      throw new IllegalArgumentException("multipart threshold " + multipartThreshold + " < 1");
    }
    Objects.requireNonNull(verify, "verify");
    for (Duration d : new Duration[] {firstBackoff, maxBackoff, slowRetry, idleCheck}) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("upload waits must be positive: " + d);
      }
    }
    if (uploadDelay.isNegative()) {
      throw new IllegalArgumentException("upload delay " + uploadDelay + " < 0");
    }
    if (maxBackoff.compareTo(firstBackoff) < 0) {
      throw new IllegalArgumentException("max back-off " + maxBackoff + " < first " + firstBackoff);
    }
    if (maxUploadRate < 0) {
      throw new IllegalArgumentException("max upload rate " + maxUploadRate + " < 0");
    }
    Objects.requireNonNull(deferral, "deferral");
  }

  /**
   * The defaults: 16 MiB threshold, ETag verification with read-back fallback, 1 s to 60 s, no
   * upload delay, no upload rate limit, uploads waiting while more than 10 s behind the primary
   * (for at most 4 GiB).
   */
  public static UploadConfig defaults(String prefix, String uploadedBy) {
    return new UploadConfig(
        prefix,
        uploadedBy,
        DEFAULT_MULTIPART_THRESHOLD,
        Verify.ETAG,
        true,
        Duration.ofSeconds(1),
        Duration.ofSeconds(60),
        Duration.ofMinutes(5),
        Duration.ofSeconds(60),
        Duration.ZERO,
        0,
        CatchUpDeferral.DEFAULT);
  }

  public UploadConfig withMultipartThreshold(long bytes) {
    return new UploadConfig(
        prefix,
        uploadedBy,
        bytes,
        verify,
        readBackOpaqueEtags,
        firstBackoff,
        maxBackoff,
        slowRetry,
        idleCheck,
        uploadDelay,
        maxUploadRate,
        deferral);
  }

  public UploadConfig withVerify(Verify mode, boolean readBackOpaque) {
    return new UploadConfig(
        prefix,
        uploadedBy,
        multipartThreshold,
        mode,
        readBackOpaque,
        firstBackoff,
        maxBackoff,
        slowRetry,
        idleCheck,
        uploadDelay,
        maxUploadRate,
        deferral);
  }

  public UploadConfig withBackoff(Duration first, Duration max, Duration slow) {
    return new UploadConfig(
        prefix,
        uploadedBy,
        multipartThreshold,
        verify,
        readBackOpaqueEtags,
        first,
        max,
        slow,
        idleCheck,
        uploadDelay,
        maxUploadRate,
        deferral);
  }

  public UploadConfig withUploadDelay(Duration delay) {
    return new UploadConfig(
        prefix,
        uploadedBy,
        multipartThreshold,
        verify,
        readBackOpaqueEtags,
        firstBackoff,
        maxBackoff,
        slowRetry,
        idleCheck,
        delay,
        maxUploadRate,
        deferral);
  }

  /** With uploads paced to {@code bytesPerSecond} (0: unlimited). */
  public UploadConfig withMaxUploadRate(long bytesPerSecond) {
    return new UploadConfig(
        prefix,
        uploadedBy,
        multipartThreshold,
        verify,
        readBackOpaqueEtags,
        firstBackoff,
        maxBackoff,
        slowRetry,
        idleCheck,
        uploadDelay,
        bytesPerSecond,
        deferral);
  }

  /**
   * With uploads waiting for a catch-up as {@code rule} says ({@link CatchUpDeferral#OFF}: never).
   */
  public UploadConfig withDeferral(CatchUpDeferral rule) {
    return new UploadConfig(
        prefix,
        uploadedBy,
        multipartThreshold,
        verify,
        readBackOpaqueEtags,
        firstBackoff,
        maxBackoff,
        slowRetry,
        idleCheck,
        uploadDelay,
        maxUploadRate,
        rule);
  }
}
