package org.binlogrelay.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;

/**
 * Test side: a small real filesystem that really fills up. Mounts a tmpfs of a given size on a
 * directory ({@code mount -t tmpfs -o size=N tmpfs DIR}, which needs root: CI runs the tests as
 * root, so a failed mount fails the test, it is never skipped), fills it with page-sized filler
 * files, frees pages one by one, remounts it bigger, and unmounts it on {@link #close()}. tmpfs
 * counts space in whole 4 KiB pages, not directory entries.
 */
final class Tmpfs implements AutoCloseable {
  static final int PAGE = 4096;

  private final Path mountPoint;
  private final Path fillerDir;
  private final Deque<Path> fillers = new ArrayDeque<>();
  private boolean mounted;
  private int nextFiller;

  private Tmpfs(Path mountPoint) {
    this.mountPoint = mountPoint;
    this.fillerDir = mountPoint.resolve("filler");
  }

  /** Mounts a tmpfs of {@code bytes} on {@code mountPoint} (created if missing). */
  static Tmpfs mount(Path mountPoint, long bytes) throws IOException {
    Files.createDirectories(mountPoint);
    Tmpfs fs = new Tmpfs(mountPoint);
    run(
        "mounting a tmpfs of "
            + bytes
            + " bytes on "
            + mountPoint
            + " (the disk-full tests need root, as CI"
            + " has; run them as root)",
        "mount",
        "-t",
        "tmpfs",
        "-o",
        "size=" + bytes,
        "tmpfs",
        mountPoint.toString());
    fs.mounted = true;
    Files.createDirectories(fs.fillerDir);
    return fs;
  }

  Path path() {
    return mountPoint;
  }

  /** Changes the size of the mounted tmpfs (grows or shrinks it; the data stays). */
  void remount(long bytes) {
    run(
        "remounting " + mountPoint + " with " + bytes + " bytes",
        "mount",
        "-o",
        "remount,size=" + bytes,
        mountPoint.toString());
  }

  /** Fills every free page with filler files; returns how many pages that took. */
  int fill() {
    int pages = 0;
    while (addFiller()) {
      pages++;
    }
    return pages;
  }

  /** Fills the filesystem and frees {@code pages} again, so exactly that many pages are free. */
  void leaveFree(int pages) {
    fill();
    free(pages);
  }

  /** Deletes {@code pages} filler files (fewer if there are not that many). */
  void free(int pages) {
    for (int i = 0; i < pages && !fillers.isEmpty(); i++) {
      try {
        Files.delete(fillers.pop());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  int fillerPages() {
    return fillers.size();
  }

  /** Free bytes as the filesystem reports them. */
  long usable() {
    try {
      return Files.getFileStore(mountPoint).getUsableSpace();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Adds one page-sized filler file; false (nothing left behind) if the filesystem is full. */
  private boolean addFiller() {
    Path f = fillerDir.resolve("filler-" + nextFiller++);
    try (FileChannel ch =
        FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer page = ByteBuffer.allocate(PAGE);
      while (page.hasRemaining()) {
        ch.write(page);
      }
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
        throw new UncheckedIOException(
            "filling " + mountPoint + " failed otherwise than with ENOSPC", e);
      }
      try {
        Files.deleteIfExists(f);
      } catch (IOException d) {
        throw new UncheckedIOException(d);
      }
      return false;
    }
    fillers.push(f);
    return true;
  }

  @Override
  public void close() {
    if (mounted) {
      mounted = false;
      run("unmounting " + mountPoint, "umount", mountPoint.toString());
    }
  }

  private static void run(String what, String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(
            what + ": " + String.join(" ", command) + " did not finish in 60 s");
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (p.exitValue() != 0) {
        throw new AssertionError(
            what
                + " failed: "
                + String.join(" ", command)
                + " exited with "
                + p.exitValue()
                + (out.isEmpty() ? "" : ": " + out));
      }
    } catch (IOException e) {
      throw new AssertionError(
          what + " failed: cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(what + " was interrupted", e);
    }
  }
}
