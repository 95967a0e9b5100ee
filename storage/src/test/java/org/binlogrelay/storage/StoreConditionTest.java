package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How an error's text says ENOSPC: the JDK gives no errno, only strerror's words. */
class StoreConditionTest {
  @TempDir Path dir;

  @Test
  void noSpaceAndQuotaAreDiskFull() {
    assertThat(StoreCondition.of(new IOException("No space left on device"), dir))
        .isEqualTo(StoreCondition.DISK_FULL);
    assertThat(
            StoreCondition.of(
                new FileSystemException("/d/binlog.index.tmp", null, "No space left on device"),
                dir))
        .isEqualTo(StoreCondition.DISK_FULL);
    assertThat(StoreCondition.of(new IOException("Disk quota exceeded"), dir))
        .isEqualTo(StoreCondition.DISK_FULL);
    assertThat(
            StoreCondition.of(
                new UncheckedIOException(new IOException("No space left on device")), dir))
        .as("found in a cause")
        .isEqualTo(StoreCondition.DISK_FULL);
  }

  @Test
  void otherErrorsAreIoErrorsWhenThereIsSpace() {
    assertThat(StoreCondition.of(new IOException("Input/output error"), dir))
        .isEqualTo(StoreCondition.IO_ERROR);
    assertThat(StoreCondition.of(new IOException("Read-only file system"), dir))
        .isEqualTo(StoreCondition.IO_ERROR);
    assertThat(StoreCondition.of(new ClosedChannelException(), dir))
        .isEqualTo(StoreCondition.IO_ERROR);
    assertThat(StoreCondition.of(new IllegalStateException("a bug"), dir))
        .isEqualTo(StoreCondition.IO_ERROR);
  }

  /** A localised strerror is not recognised; then a nearly full filesystem decides. */
  @Test
  void anUnrecognisedErrorOnAFullFilesystemIsDiskFull() throws Exception {
    try (Tmpfs fs = Tmpfs.mount(dir.resolve("fs"), 256 << 10)) {
      IOException german = new IOException("Auf dem Gerät ist kein Speicherplatz mehr verfügbar");
      assertThat(StoreCondition.of(german, fs.path()))
          .as("256 KiB usable is below 1 MiB")
          .isEqualTo(StoreCondition.DISK_FULL);
    }
    assertThat(
            StoreCondition.of(
                new IOException("Auf dem Gerät ist kein Speicherplatz mehr verfügbar"), dir))
        .as("plenty of space")
        .isEqualTo(StoreCondition.IO_ERROR);
  }
}
