package org.binlogrelay.archive.upload;

import org.binlogrelay.archive.ArchivedFileRecord;

/**
 * Told when a file becomes archived (VERIFIED): the server runs local retention then. Called on the
 * uploader's thread; implementations must be quick. An exception is logged and ignored.
 */
@FunctionalInterface
public interface UploadListener {
  /**
   * {@code record} is in the archive.
   *
   * @param sent whether this relay sent the bytes (false: another relay had uploaded them)
   */
  void archived(ArchivedFileRecord record, boolean sent);
}
