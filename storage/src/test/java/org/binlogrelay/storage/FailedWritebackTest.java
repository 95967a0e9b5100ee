package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A force that really fails on a real file system, and what the disk holds afterwards. The store's
 * directory is on ext4 on a loop device whose image file lies on a small tmpfs (root needed, as in
 * CI; a failed command fails the test): once the tmpfs is full, the loop device fails ext4's
 * writeback of new blocks, ext4 logs "I/O error ... failed to convert unwritten extents ...
 * potential data loss", and {@code fsync} returns ENOSPC (the loop device's BLK_STS_NOSPC; plain
 * {@code write}s keep succeeding into the page cache). Growing the tmpfs again makes the device
 * writable.
 *
 * <p>The trap: the blocks of the failed writeback stay unwritten extents. The page cache still
 * shows the bytes, and writing the same bytes again in place and forcing them succeeds, yet the
 * disk reads back zeros once the pages are gone (the kernel does not convert the extents on that
 * second writeback). The store used to resume exactly that way. Now it cuts back to the durable
 * boundary and the primary sends the rest again; the test unmounts and mounts the ext4 afterwards,
 * so the check reads the disk, not the page cache.
 */
class FailedWritebackTest {
  private static final long BACKING = 64L << 20;
  private static final long IMAGE = 32L << 20;

  @TempDir Path tmp;

  static Stream<String> flavors() {
    return Stream.of("mysql", "mariadb");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("flavors")
  void afterAFailedWritebackTheStoreKeepsOnlyWhatADurableForceCovered(String flavor)
      throws Exception {
    SourceBinlog source = flavor.equals("mysql") ? SourceBinlog.mysql() : SourceBinlog.mariadb();
    Path ext4 = tmp.resolve("ext4");
    try (Tmpfs backing = Tmpfs.mount(tmp.resolve("backing"), BACKING);
        LoopExt4 fs = LoopExt4.mount(backing.path().resolve("disk.img"), IMAGE, ext4)) {
      Path dir = ext4.resolve("store");
      try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
        Feed feed = new Feed(store, source).start();
        // into the last file, so that the first thing the syncer does after the device fills is
        // forcing the
        // binlog file (no rotation's close job, no new file's index, no checkpoint before it)
        for (int transactions = 0; transactions < 2; ) {
          boolean completed = feed.append().completedTransaction();
          if (completed && store.currentFile().orElseThrow().equals(source.lastFile())) {
            transactions++;
          }
        }
        store.sync().join();

        backing.remount(used(backing.path())); // the image file cannot get one more page
        Exception e = feed.appendUntilFailure();
        DiskChecks.settle(store);
        StoreHealth stopped = store.health();
        assertThat(stopped.accepting())
            .as("a failed writeback stops the store (append threw: " + e + ")")
            .isFalse();
        assertThat(stopped.lastError())
            .as("what fsync returned")
            .contains("No space left on device");
        Position durable = store.durableEnd();
        assertThat(store.readableEnd())
            .as("the failed force covered transactions after the durable boundary")
            .isGreaterThan(durable);

        backing.remount(BACKING);
        assertThat(store.tryResume()).isTrue();
        assertThat(store.durableEnd())
            .as("cut back to the last durable boundary")
            .isEqualTo(durable);
        feed.start();
        assertThat(feed.appendUntilFailure()).isNull();
        store.sync().join();
      }
      fs.remount(); // read what the disk holds, not what the page cache still shows
      DiskChecks.assertEqualsSource(dir, source);
    }
  }

  private static long used(Path mountPoint) throws IOException {
    FileStore s = Files.getFileStore(mountPoint);
    return (s.getTotalSpace() - s.getUsableSpace() + Tmpfs.PAGE - 1) / Tmpfs.PAGE * Tmpfs.PAGE;
  }

  /**
   * Test side: an ext4 file system made on a loop device over a sparse image file, mounted on a
   * directory. Its metadata, inode tables and journal are written whole at creation, so that a full
   * image file later fails only the writeback of new data blocks. {@link #close()} unmounts it and
   * detaches the loop device.
   */
  private static final class LoopExt4 implements AutoCloseable {
    private final Path mountPoint;
    private String device;
    private boolean mounted;

    private LoopExt4(Path mountPoint) {
      this.mountPoint = mountPoint;
    }

    static LoopExt4 mount(Path image, long bytes, Path mountPoint) throws IOException {
      Files.createDirectories(mountPoint);
      LoopExt4 fs = new LoopExt4(mountPoint);
      try {
        run("truncate", "-s", Long.toString(bytes), image.toString());
        fs.device = run("losetup", "-f", "--show", image.toString());
        run("mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0,nodiscard", fs.device);
        run("mount", fs.device, mountPoint.toString());
        fs.mounted = true;
        return fs;
      } catch (RuntimeException | Error e) {
        fs.close();
        throw e;
      }
    }

    /** Unmounts and mounts again: the page cache of its files is gone, reads go to the device. */
    void remount() {
      mounted = false;
      run("umount", mountPoint.toString());
      run("mount", device, mountPoint.toString());
      mounted = true;
    }

    @Override
    public void close() {
      try {
        if (mounted) {
          mounted = false;
          run("umount", mountPoint.toString());
        }
      } finally {
        if (device != null) {
          String d = device;
          device = null;
          run("losetup", "-d", d);
        }
      }
    }

    private static String run(String... command) {
      try {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new AssertionError(String.join(" ", command) + " did not finish in 60 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.exitValue() != 0) {
          throw new AssertionError(
              String.join(" ", command)
                  + " exited with "
                  + p.exitValue()
                  + ": "
                  + out
                  + " (the test makes an ext4 on a loop device: it needs root, as CI has)");
        }
        return out;
      } catch (IOException e) {
        throw new AssertionError(
            "cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted running " + String.join(" ", command), e);
      }
    }
  }
}
