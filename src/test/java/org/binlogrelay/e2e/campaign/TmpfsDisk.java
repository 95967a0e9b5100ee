package org.binlogrelay.e2e.campaign;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Test side: a tmpfs mounted for the campaign as the relay's data directory, filled up by shrinking
 * it to just above what it holds ({@code mount -o remount,size=N}) and freed by growing it back.
 * Needs root (as CI has); a failed mount fails the test. Unmounted by {@link #close()}, or by a
 * shutdown hook if the JVM ends first. The campaign's thread uses it; only {@link #close()} is
 * thread-safe. Also used outside the campaign (DiskFullIT, ArchiveDiskFullIT).
 */
public final class TmpfsDisk implements RelayDisk {
  private static final long PAGE = 4096;
  private final Path mountPoint;
  private final long size;
  private boolean mounted;

  private TmpfsDisk(Path mountPoint, long size) {
    this.mountPoint = mountPoint;
    this.size = size;
  }

  /** Mounts a tmpfs of {@code bytes} at {@code mountPoint} (created if missing). */
  public static TmpfsDisk mount(Path mountPoint, long bytes) {
    try {
      Files.createDirectories(mountPoint);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    TmpfsDisk disk = new TmpfsDisk(mountPoint, bytes);
    SystemCommand.run(
        "mount", "-t", "tmpfs", "-o", "size=" + bytes, "tmpfs", mountPoint.toString());
    disk.mounted = true;
    // a test JVM that ends without closing it (interrupted run) leaves no mount behind
    Runtime.getRuntime().addShutdownHook(new Thread(disk::close, "tmpfs-unmount"));
    return disk;
  }

  @Override
  public Path path() {
    return mountPoint;
  }

  /** Bytes in use now. */
  public long used() {
    try {
      FileStore store = Files.getFileStore(mountPoint);
      return store.getTotalSpace() - store.getUsableSpace();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Leaves {@code headroom} bytes (rounded up to pages) free: the next writes beyond it fail with
   * ENOSPC.
   */
  @Override
  public long fill(long headroom) {
    // The kernel refuses (EINVAL, "bad option") a size below what the tmpfs holds at the remount;
    // what it holds can grow between the reading and the remount (a loop device's writeback into
    // an image file on it), so a refusal with more in use than the size asked is measured again.
    for (int attempt = 1; ; attempt++) {
      long to = (used() + headroom + PAGE - 1) / PAGE * PAGE;
      try {
        SystemCommand.run("mount", "-o", "remount,size=" + to, mountPoint.toString());
        return to;
      } catch (AssertionError e) {
        if (attempt == 10 || used() <= to) {
          throw e;
        }
      }
    }
  }

  /** Back to the size it was mounted with. */
  @Override
  public void free() {
    SystemCommand.run("mount", "-o", "remount,size=" + size, mountPoint.toString());
  }

  @Override
  public synchronized void close() {
    if (mounted) {
      mounted = false;
      SystemCommand.run("umount", "-l", mountPoint.toString());
    }
  }
}
