package org.binlogrelay.archive;

import org.binlogrelay.archive.upload.UploadStatus;

/**
 * What the archive is doing, for the admin API, {@code relayctl status} and the metrics: a
 * snapshot, immutable.
 *
 * @param location {@code s3://bucket/prefix}
 * @param upload the uploader's state and last failure with advice
 * @param pendingFiles closed local files not yet archived
 * @param pendingBytes their bytes
 * @param oldestPendingAgeSeconds the age of the oldest of them (0 if none)
 * @param uploadedFiles files this relay uploaded since it started
 * @param uploadedBytes their bytes
 * @param archivedFiles files in the archive (uploaded and verified, by any relay)
 * @param archivedBytes their bytes
 * @param firstArchived the oldest archived file, or {@code null} if none
 * @param lastArchived the newest archived file, or {@code null} if none
 * @param cacheBytes bytes of archived files held in the local cache
 * @param fetches archived files fetched into the cache since the start
 * @param fetchedBytes their bytes
 * @param fetchFailures fetches that failed since the start
 * @param deletedFiles archived files deleted by the archive's retention since the start
 * @param encoding how new objects are written ({@code identity}, {@code zstd:3}, {@code
 *     zstd:3+aes-gcm}, {@code aes-gcm}: {@code --archive-compression} and whether an encryption key
 *     is given)
 * @param encryptionKeyId the id of the key new objects are encrypted with ({@code
 *     --archive-encryption-key-id}), {@code null} without encryption
 * @param maxUploadRateBytesPerSecond {@code --archive-max-upload-rate}, 0 for no limit
 */
public record ArchiveStatus(
    String location,
    UploadStatus upload,
    long pendingFiles,
    long pendingBytes,
    long oldestPendingAgeSeconds,
    long uploadedFiles,
    long uploadedBytes,
    int archivedFiles,
    long archivedBytes,
    String firstArchived,
    String lastArchived,
    long cacheBytes,
    long fetches,
    long fetchedBytes,
    long fetchFailures,
    long deletedFiles,
    String encoding,
    String encryptionKeyId,
    long maxUploadRateBytesPerSecond) {}
