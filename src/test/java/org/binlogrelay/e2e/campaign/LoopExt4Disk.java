package org.binlogrelay.e2e.campaign;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Test side: an ext4 file system on a loop device whose image file (sparse, {@code bytes} long)
 * lies on a tmpfs of the same size. It fails in two ways. {@link #fill} fills the ext4 itself, with
 * a ballast file allocated at its root (beside the relay's data directory, made with no blocks
 * reserved for root), so that writes fail with ENOSPC, as on a full disk; {@link #free} removes the
 * ballast. {@link #failWrites} shrinks the backing tmpfs to what the image holds: the image file
 * cannot grow, the loop device fails ext4's writeback of new blocks ("I/O error ... writing to
 * inode", "failed to convert unwritten extents ... potential data loss" in the kernel log), and
 * {@code fsync} of the file returns the device's error. Plain writes keep succeeding into the page
 * cache, since ext4 itself has room. {@link #free} grows the tmpfs back and the device takes writes
 * again. mkfs writes the inode tables and the journal whole, so that only data blocks fail, and
 * uses 4 KiB blocks, as ext4 does on any file system a relay's data would live on (on this small
 * one it would pick 1 KiB blocks; with those, IoErrorIT twice found bytes before the durable
 * boundary wrong after remounting: see docs/reliability.md, "Not covered"); {@link #healWrites}
 * grows the tmpfs back. {@link #remount} unmounts and mounts the ext4 again: reads then come from
 * the device, not from the page cache. Needs root (as CI has); a failed command fails the test.
 * {@link #close()} unmounts the ext4, detaches the loop device and unmounts the tmpfs, also from a
 * shutdown hook if the JVM ends first; only it is thread-safe.
 */
final class LoopExt4Disk implements RelayDisk {
  private static final String BALLAST = "ballast";
  private static final long BLOCK = 4096;
  private final TmpfsDisk backing;
  private final Path mountPoint;
  private String device;
  private boolean mounted;

  private LoopExt4Disk(TmpfsDisk backing, Path mountPoint) {
    this.backing = backing;
    this.mountPoint = mountPoint;
  }

  /** Makes and mounts the ext4 at {@code mountPoint}; its image lies on a tmpfs next to it. */
  static LoopExt4Disk mount(Path mountPoint, long bytes) {
    TmpfsDisk backing =
        TmpfsDisk.mount(mountPoint.resolveSibling(mountPoint.getFileName() + "-image"), bytes);
    LoopExt4Disk disk = new LoopExt4Disk(backing, mountPoint);
    Runtime.getRuntime().addShutdownHook(new Thread(disk::close, "loop-ext4-unmount"));
    try {
      Files.createDirectories(mountPoint);
      Path image = backing.path().resolve("disk.img");
      SystemCommand.run("truncate", "-s", Long.toString(bytes), image.toString());
      synchronized (disk) {
        disk.device = SystemCommand.run("losetup", "-f", "--show", image.toString());
      }
      SystemCommand.run(
          "mkfs.ext4",
          "-q",
          "-b",
          "4096",
          "-m",
          "0",
          "-E",
          "lazy_itable_init=0,lazy_journal_init=0,nodiscard",
          disk.device);
      SystemCommand.run("mount", disk.device, mountPoint.toString());
      synchronized (disk) {
        disk.mounted = true;
      }
      return disk;
    } catch (IOException e) {
      disk.close();
      throw new UncheckedIOException(e);
    } catch (RuntimeException | Error e) {
      disk.close();
      throw e;
    }
  }

  @Override
  public Path path() {
    return mountPoint;
  }

  /** The loop device, e.g. {@code /dev/loop0} (the kernel's messages name it {@code loop0}). */
  String device() {
    return device;
  }

  /**
   * Leaves about {@code headroom} bytes of the ext4 free (ENOSPC beyond them): allocates a ballast
   * file of the rest; returns the ballast's size.
   */
  @Override
  public long fill(long headroom) {
    Path ballast = mountPoint.resolve(BALLAST);
    try {
      long free = Files.getFileStore(mountPoint).getUsableSpace();
      long size = Math.max(BLOCK, (free - headroom) / BLOCK * BLOCK);
      SystemCommand.run("fallocate", "-l", Long.toString(size), ballast.toString());
      return size;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Removes the ballast of {@link #fill}. */
  @Override
  public void free() {
    try {
      Files.deleteIfExists(mountPoint.resolve(BALLAST));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Makes the device fail ext4's writeback of new data blocks (the backing tmpfs shrunk to what the
   * image holds); {@code fsync} then fails. Returns the size the tmpfs was shrunk to.
   */
  long failWrites() {
    return backing.fill(0);
  }

  /** The device takes writes again. */
  void healWrites() {
    backing.free();
  }

  /**
   * Whether the kernel has made the ext4 read-only. A failed write of a new metadata block (an
   * extent or directory block that lands where the image has no page yet) makes jbd2 abort the
   * journal, and ext4 turns read-only at its next change ("Aborting journal on device", "Remounting
   * filesystem read-only" in the kernel log): a disk an operator has to repair, not one that takes
   * writes again by itself.
   */
  boolean readOnly() {
    try {
      String mount = mountPoint.toRealPath().toString();
      for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
        String[] fields = line.split(" ");
        if (fields.length > 3 && fields[1].equals(mount)) {
          // Since Linux 6.x an ext4 that turned itself read-only still shows "rw", plus
          // "emergency_ro"; a file system mounted read-only shows "ro".
          List<String> options = List.of(fields[3].split(","));
          return options.contains("ro") || options.contains("emergency_ro");
        }
      }
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Makes the kernel turn the ext4 read-only at once, as after its journal aborted: remounts it
   * with {@code errors=remount-ro} and reports an error through ext4's {@code trigger_fs_error}.
   */
  void turnReadOnly() {
    String name = device.substring(device.lastIndexOf('/') + 1);
    SystemCommand.run("mount", "-o", "remount,errors=remount-ro", mountPoint.toString());
    SystemCommand.run("sh", "-c", "echo 1 > /sys/fs/ext4/" + name + "/trigger_fs_error");
  }

  /**
   * What an operator does with an ext4 that went read-only: unmounts it, checks and repairs it
   * ({@code e2fsck -fy}, which replays the journal), and mounts it again. Nothing may have a file
   * open in it.
   */
  void repair() {
    SystemCommand.run("umount", mountPoint.toString());
    // e2fsck exits 1 when it corrected errors and 2 when it did and asks for a reboot: both leave a
    // consistent file system.
    SystemCommand.run(
        "sh",
        "-c",
        "e2fsck -fy \"$0\" >/dev/null 2>&1; s=$?; [ \"$s\" -le 2 ] || exit \"$s\"",
        device);
    SystemCommand.run("mount", device, mountPoint.toString());
  }

  /** Unmounts and mounts the ext4 again (nothing may have a file open in it). */
  void remount() {
    SystemCommand.run("umount", mountPoint.toString());
    SystemCommand.run("mount", device, mountPoint.toString());
  }

  @Override
  public synchronized void close() {
    try {
      if (mounted) {
        mounted = false;
        SystemCommand.run("umount", "-l", mountPoint.toString());
      }
    } finally {
      try {
        if (device != null) {
          String d = device;
          device = null;
          SystemCommand.run("losetup", "-d", d); // lazily detached once a lazy unmount is done
        }
      } finally {
        backing.close();
      }
    }
  }
}
