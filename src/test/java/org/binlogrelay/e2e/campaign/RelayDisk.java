package org.binlogrelay.e2e.campaign;

import java.nio.file.Path;

/**
 * Test side: the file system under the relay's data directory, which a test fills up and frees
 * again: a tmpfs ({@link TmpfsDisk}: writes fail with ENOSPC) or an ext4 on a loop device over a
 * tmpfs ({@link LoopExt4Disk}: the device fails ext4's writeback). Same thread rules as its
 * implementations.
 */
interface RelayDisk extends AutoCloseable {
  /** Where it is mounted. */
  Path path();

  /** Leaves about {@code headroom} bytes free for new data; returns the size it was shrunk to. */
  long fill(long headroom);

  /** Back to the size it was mounted with. */
  void free();

  @Override
  void close();
}
