package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.binlogrelay.protocol.event.BinlogChecksum;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one byte the store changes after writing it: the FORMAT_DESCRIPTION's {@code
 * LOG_EVENT_BINLOG_IN_USE_F} (file offset 21 = 4 bytes of magic + the header's flags at 17). It
 * must follow what the primary does on its own disk, including when the primary crashed in a file
 * and restarted into the next one: MySQL's crash recovery clears the flag of the file it crashed in
 * ({@code MYSQL_BIN_LOG::open_binlog} through {@code truncate_update_log_file(..., true)}),
 * MariaDB's ({@code MYSQL_BIN_LOG::do_binlog_recovery}) leaves it set.
 */
class InUseFlagTest {
  private static final int FLAG_BYTE = (int) BinlogFile.IN_USE_FLAG_OFFSET;

  @TempDir Path dir;

  @Test
  void theFlagIsTheByteAtOffset21() {
    assertThat(BinlogFile.IN_USE_FLAG_OFFSET)
        .isEqualTo(4 + 17)
        .isEqualTo(4 + EventHeader.FLAGS_OFFSET);
  }

  @Test
  void mysqlClearsTheFlagOfTheFileItCrashedInSoTheStoreDoesWhenTheNextFileStarts()
      throws IOException {
    SourceBinlog source = SourceBinlog.mysql();
    Crash crash = crashInSecondFile(source);
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      crash.replay(store);
      store.sync().join(); // the close job of the abandoned file runs before this force
      assertThat(store.file(crash.second).orElseThrow().ending())
          .isEqualTo(FileMetadata.Ending.NONE);
      assertThat(flag(crash.second))
          .as("in-use flag of %s after the primary restarted", crash.second)
          .isZero();
      assertThat(Files.readAllBytes(dir.resolve(crash.second)))
          .isEqualTo(Arrays.copyOf(source.bytes.get(crash.second), (int) crash.cut));
      assertThat(store.verify(crash.second).ok()).isTrue();
      assertThat(flag(crash.third)).as("the open file keeps its flag").isEqualTo(1);
    }
    assertFdeCrcValidEitherWay(crash.second);
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      assertThat(store.recoveryReport().clean()).isTrue();
      assertThat(flag(crash.second)).isZero();
    }
  }

  @Test
  void mariadbKeepsTheFlagOfTheFileItCrashedIn() throws IOException {
    SourceBinlog source = SourceBinlog.mariadb();
    Crash crash = crashInSecondFile(source);
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      crash.replay(store);
      store.sync().join();
      assertThat(flag(crash.second)).isEqualTo(1);
      assertThat(Files.readAllBytes(dir.resolve(crash.second)))
          .isEqualTo(source.openPrefix(crash.second, crash.cut));
      assertThat(store.verify(crash.second).ok()).isTrue();
    }
    assertFdeCrcValidEitherWay(crash.second);
  }

  @Test
  void recoveryClearsTheFlagOfAnAbandonedFileWhoseCloseJobNeverRan() throws IOException {
    SourceBinlog source = SourceBinlog.mysql();
    Crash crash = crashInSecondFile(source);
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      crash.replay(store);
    }
    // As if the relay died after the writer moved on to the third file but before the syncer closed
    // the second.
    Stores.writeCheckpoint(
        dir,
        source,
        crash.second,
        source.boundariesOf(crash.second).higherKey(200L),
        source.boundariesOf(crash.second).firstEntry().getValue());
    setFlag(crash.second);
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      FileMetadata second = store.file(crash.second).orElseThrow();
      assertThat(second.closed()).isTrue();
      assertThat(second.ending()).isEqualTo(FileMetadata.Ending.NONE);
      assertThat(flag(crash.second)).isZero();
      assertThat(Files.readAllBytes(dir.resolve(crash.second)))
          .isEqualTo(Arrays.copyOf(source.bytes.get(crash.second), (int) crash.cut));
    }
  }

  @Test
  void aFileClosedByRotateOrStopHasItsFlagClearedInBothFlavours() throws IOException {
    for (SourceBinlog source : SourceBinlog.all()) {
      Path d = dir.resolve(source.directory);
      Stores.fill(d, source);
      for (String f : source.files.subList(0, source.files.size() - 1)) {
        assertThat(Files.readAllBytes(d.resolve(f))).as(f).isEqualTo(source.bytes.get(f));
      }
      assertThat(Files.readAllBytes(d.resolve(source.lastFile())))
          .isEqualTo(
              source.openPrefix(source.lastFile(), source.bytes.get(source.lastFile()).length));
    }
  }

  /**
   * The primary crashed in its second file at a transaction boundary and restarted into its third.
   */
  private record Crash(SourceBinlog source, String second, String third, long cut) {
    void replay(BinlogStore store) throws IOException {
      store.startStream();
      for (BinlogEvent e : source.dumpStream(Position.startOf(source.files.get(0)))) {
        if (e.header().logPos() > cut && store.currentFile().orElse("").equals(second)) {
          break;
        }
        store.append(e);
      }
      assertThat(store.readableEnd()).isEqualTo(new Position(second, cut));
      for (BinlogEvent e : source.dumpStream(Position.startOf(third))) {
        store.append(e);
      }
    }
  }

  private static Crash crashInSecondFile(SourceBinlog source) {
    String second = source.files.get(1);
    long cut = source.boundariesOf(second).lowerKey((long) source.bytes.get(second).length - 100);
    return new Crash(source, second, source.files.get(2), cut);
  }

  private int flag(String file) throws IOException {
    return Files.readAllBytes(dir.resolve(file))[FLAG_BYTE] & EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
  }

  private void setFlag(String file) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve(file).toFile(), "rw")) {
      f.seek(FLAG_BYTE);
      int b = f.read();
      f.seek(FLAG_BYTE);
      f.write(b | EventHeader.LOG_EVENT_BINLOG_IN_USE_F);
    }
  }

  /**
   * The stored CRC32 of the FORMAT_DESCRIPTION is the server's, computed with the flag masked:
   * valid set or not.
   */
  private void assertFdeCrcValidEitherWay(String file) throws IOException {
    byte[] b = Files.readAllBytes(dir.resolve(file));
    int size = (int) EventHeader.parse(b, 4).eventSize();
    byte[] fde = Arrays.copyOfRange(b, 4, 4 + size);
    assertThat(BinlogChecksum.verify(fde, 0, size)).as("stored FDE CRC32 of " + file).isTrue();
    fde[EventHeader.FLAGS_OFFSET] ^= EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
    assertThat(BinlogChecksum.verify(fde, 0, size)).as("with the flag flipped").isTrue();
  }
}
