package org.binlogrelay.archive;

import java.time.Duration;
import java.util.Objects;
import org.binlogrelay.archive.codec.ChunkCodec;
import org.binlogrelay.archive.codec.KeyRing;
import org.binlogrelay.archive.objectstore.S3Settings;
import org.binlogrelay.archive.upload.UploadConfig;
import org.binlogrelay.storage.tier.TieredBinlog;

/**
 * The relay's {@code --archive*} options, as the {@link Archive} uses them. Immutable.
 *
 * @param location the bucket and key prefix ({@code --archive s3://bucket/prefix})
 * @param s3 how to reach the object store (endpoint, region, path style, credentials, timeouts)
 * @param upload how closed files are uploaded and verified
 * @param cacheBytes the most bytes of fetched archived files kept in the local cache ({@code
 *     --archive-cache-bytes}, 4 GiB)
 * @param fetchTimeout how long a reader waits for an archived file to be fetched before it gives up
 *     ({@code --archive-fetch-timeout}, 5 min)
 * @param retention how long archived files are kept in the archive ({@link Duration#ZERO}: for
 *     ever; {@code --archive-retention})
 * @param prefetchFiles how many archived files a reader fetches ahead of the one it reads
 * @param codec how new objects are encoded ({@code --archive-compression}, {@code
 *     --archive-encryption-key-file}) and the keys that decrypt archived ones ({@code
 *     --archive-decryption-keys}); identity without keys by default
 */
public record ArchiveConfig(
    ArchiveLocation location,
    S3Settings s3,
    UploadConfig upload,
    long cacheBytes,
    Duration fetchTimeout,
    Duration retention,
    int prefetchFiles,
    ChunkCodec codec) {

  /** The default cache size, 4 GiB. */
  public static final long DEFAULT_CACHE_BYTES = 4L << 30;

  /** The default fetch timeout, 5 minutes. */
  public static final Duration DEFAULT_FETCH_TIMEOUT = Duration.ofMinutes(5);

  public ArchiveConfig {
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(s3, "s3");
    Objects.requireNonNull(upload, "upload");
    Objects.requireNonNull(fetchTimeout, "fetchTimeout");
    Objects.requireNonNull(retention, "retention");
    Objects.requireNonNull(codec, "codec");
    if (cacheBytes <= 0) {
      throw new IllegalArgumentException("the archive cache size must be positive: " + cacheBytes);
    }
    if (fetchTimeout.isNegative() || fetchTimeout.isZero()) {
      throw new IllegalArgumentException("the fetch timeout must be positive: " + fetchTimeout);
    }
    if (retention.isNegative()) {
      throw new IllegalArgumentException("the archive retention cannot be negative: " + retention);
    }
    if (prefetchFiles < 0) {
      throw new IllegalArgumentException("prefetch files cannot be negative: " + prefetchFiles);
    }
  }

  /** Identity objects, no keys. */
  public ArchiveConfig(
      ArchiveLocation location,
      S3Settings s3,
      UploadConfig upload,
      long cacheBytes,
      Duration fetchTimeout,
      Duration retention,
      int prefetchFiles) {
    this(
        location,
        s3,
        upload,
        cacheBytes,
        fetchTimeout,
        retention,
        prefetchFiles,
        ChunkCodec.forReading(KeyRing.none()));
  }

  /** The same with {@code newCodec}. */
  public ArchiveConfig withCodec(ChunkCodec newCodec) {
    return new ArchiveConfig(
        location, s3, upload, cacheBytes, fetchTimeout, retention, prefetchFiles, newCodec);
  }

  /** The defaults for everything but where the archive is and how it is uploaded to. */
  public static ArchiveConfig defaults(
      ArchiveLocation location, S3Settings s3, UploadConfig upload) {
    return new ArchiveConfig(
        location,
        s3,
        upload,
        DEFAULT_CACHE_BYTES,
        DEFAULT_FETCH_TIMEOUT,
        Duration.ZERO,
        TieredBinlog.DEFAULT_PREFETCH_FILES);
  }
}
