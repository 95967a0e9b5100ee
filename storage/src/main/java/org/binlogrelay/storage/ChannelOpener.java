package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Opens the channels the store writes through: binlog files, temporary files of atomic writes, the
 * directory for its forces. {@link #FILES} in production; tests pass one that wraps the channels to
 * inject I/O errors (see {@link BinlogStore#open(StoreConfig, ChannelOpener)}).
 *
 * <p>{@link #FILES} creates files readable and writable by their owner only ({@code rw-------}, on
 * file systems with POSIX permissions): binlogs hold table data, so other local users must not read
 * them.
 */
@FunctionalInterface
interface ChannelOpener {
  /** Permissions of the files the store creates. */
  Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

  ChannelOpener FILES =
      (path, options) -> {
        Set<OpenOption> set = Set.of(options);
        if (StoreDirectory.posix(path.getParent())) {
          FileAttribute<Set<PosixFilePermission>> ownerOnly =
              PosixFilePermissions.asFileAttribute(OWNER_ONLY);
          return FileChannel.open(path, set, ownerOnly);
        }
        return FileChannel.open(path, set);
      };

  FileChannel open(Path path, OpenOption... options) throws IOException;
}
