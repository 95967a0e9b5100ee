package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the store accepts writes, and if not, why. See {@link BinlogStore#health()} and {@link
 * BinlogStore#tryResume()}.
 */
public enum StoreCondition {
  /** Appending works. */
  ACCEPTING,
  /**
   * A write, force, or file creation failed for lack of space (ENOSPC, or EDQUOT: a quota). What
   * was complete stays; the store resumes once space is freed and {@link BinlogStore#tryResume()}
   * succeeds.
   */
  DISK_FULL,
  /**
   * Any other I/O error (EIO, a read-only remount, ...). What was complete stays; the store resumes
   * once the disk works again and {@link BinlogStore#tryResume()} succeeds.
   */
  IO_ERROR;

  /**
   * strerror(ENOSPC) and strerror(EDQUOT) as glibc prints them, which is what the JDK puts in its
   * exceptions.
   */
  private static final String[] DISK_FULL_TEXTS = {
    "No space left on device", "Disk quota exceeded"
  };

  /**
   * When the error text is not recognised (a localised strerror), a filesystem with less than this
   * much usable space counts as full.
   */
  static final long LOW_SPACE_BYTES = 1L << 20;

  /**
   * The condition an error puts a store in {@code directory} into: {@link #DISK_FULL} if it (or a
   * cause) says ENOSPC or EDQUOT, or if the text is not recognised and the filesystem has less than
   * 1 MiB usable; otherwise {@link #IO_ERROR}. The JDK reports errno only as text: an {@link
   * IOException} whose message is strerror's ({@code FileChannel.write}, {@code force}), or a
   * {@link FileSystemException} whose {@link FileSystemException#getReason() reason} is ({@code
   * Files.move}, {@code Files.copy}, ...).
   */
  static StoreCondition of(Throwable error, Path directory) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      String text =
          t instanceof FileSystemException fse && fse.getReason() != null
              ? fse.getReason()
              : t.getMessage();
      if (text != null) {
        for (String full : DISK_FULL_TEXTS) {
          if (text.contains(full)) {
            return DISK_FULL;
          }
        }
      }
    }
    if (error instanceof IOException && directory != null) {
      try {
        if (Files.getFileStore(directory).getUsableSpace() < LOW_SPACE_BYTES) {
          return DISK_FULL;
        }
      } catch (IOException | RuntimeException e) {
        error.addSuppressed(
            e); // the directory itself is unreadable: an I/O error, and it is kept with it
      }
    }
    return IO_ERROR;
  }
}
