/**
 * Uploading closed binlog files to the archive, once each, verified: {@link
 * org.binlogrelay.archive.upload.Uploader} (the background thread, queue and back-off), {@link
 * org.binlogrelay.archive.upload.FileUpload} (one file's reconciliation and upload), {@link
 * org.binlogrelay.archive.upload.UploadState} (the persisted per-file state), and what the server
 * reads: {@link org.binlogrelay.archive.upload.UploadCounters}, {@link
 * org.binlogrelay.archive.upload.UploadStatus}, the uploader's {@link
 * org.binlogrelay.storage.tier.ArchiveGate}. Only the {@link
 * org.binlogrelay.archive.objectstore.ObjectStore} interface is used, never the SDK.
 */
package org.binlogrelay.archive.upload;
