package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.binlogrelay.protocol.event.EventHeader;

/**
 * Test side: what a store directory must look like after a disk error, whatever the moment it
 * struck: no temporary file, an index listing the stored files (or the oldest of them: the syncer
 * lists a new file after the writer created it, and stops at a disk error), every metadata file
 * intact, every binlog file an exact prefix of the primary's, ending at a transaction boundary (the
 * in-use flag may be either way), and every file but the last complete.
 */
final class DiskChecks {
  private static final int IN_USE_BYTE = (int) BinlogFile.IN_USE_FLAG_OFFSET;

  private DiskChecks() {}

  /**
   * Waits for the syncer to be idle (or dead): a sync, whose failure is the store's business, not
   * the check's. After it, nothing writes in the directory while the writer is stopped.
   */
  static void settle(BinlogStore store) {
    try {
      store.sync().join();
    } catch (CompletionException expectedWhenTheSyncerFailed) {
      assertThat(store.health().accepting()).as("a failed sync stops the store").isFalse();
    }
  }

  /** Checks the directory (see the class comment) and returns where its binlog ends. */
  static Position assertCleanPrefix(Path dir, SourceBinlog source) throws IOException {
    List<String> entries = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      s.forEach(p -> entries.add(p.getFileName().toString()));
    }
    assertThat(entries)
        .as("temporary files in " + dir)
        .noneMatch(n -> n.endsWith(StoreDirectory.TEMP_SUFFIX));
    List<String> binlogs = new ArrayList<>();
    for (String f : source.files) {
      if (entries.contains(f)) {
        binlogs.add(f);
      }
    }
    assertThat(binlogs)
        .as("binlog files in " + dir + " (" + entries + ")")
        .isEqualTo(source.files.subList(0, binlogs.size()));
    String indexName = BinlogIndex.nameFor(source.files.get(0));
    if (binlogs.isEmpty()) {
      return null;
    }
    if (entries.contains(indexName)) {
      List<String> indexed =
          BinlogIndex.decode(Files.readAllBytes(dir.resolve(indexName)), indexName);
      assertThat(indexed)
          .as("the index lists the files, or the oldest ones (the syncer lists new files)")
          .isEqualTo(binlogs.subList(0, indexed.size()));
    }
    StoreDirectory d = new StoreDirectory(dir);
    BinlogFlavor flavor = BinlogFlavor.of(source.flavor);
    Position end = null;
    for (int i = 0; i < binlogs.size(); i++) {
      String f = binlogs.get(i);
      byte[] stored = Files.readAllBytes(dir.resolve(f));
      byte[] original = source.bytes.get(f);
      long length = stored.length;
      if (i < binlogs.size() - 1) {
        assertThat(length)
            .as(f + " is followed by another file, so it is complete")
            .isEqualTo(original.length);
      } else {
        assertThat(source.boundariesOf(f))
            .as(f + " ends at " + length + ", a transaction boundary")
            .containsKey(length);
      }
      assertThat(masked(stored))
          .as(f + " equals the primary's first " + length + " bytes")
          .isEqualTo(masked(Arrays.copyOf(original, (int) length)));
      try {
        MetadataFile.read(d, f, flavor);
      } catch (MetadataFile.DamagedException e) {
        fail("metadata of " + f + " is damaged: " + e.getMessage());
      }
      end = new Position(f, length);
    }
    return end;
  }

  /** Readers can read every file up to its readable length, and read the primary's bytes. */
  static void assertReadable(BinlogStore store, SourceBinlog source) throws IOException {
    for (FileMetadata f : store.files()) {
      long n = store.readableLength(f.name());
      ByteBuffer buf = ByteBuffer.allocate((int) n);
      try (FileChannel ch = store.openFile(f.name())) {
        while (buf.hasRemaining()) {
          if (ch.read(buf, buf.position()) < 0) {
            fail(f.name() + " is shorter than its readable length " + n);
          }
        }
      }
      assertThat(masked(buf.array()))
          .as("readable part of " + f.name())
          .isEqualTo(masked(Arrays.copyOf(source.bytes.get(f.name()), (int) n)));
    }
  }

  /** The store's files are the primary's, byte for byte. */
  static void assertEqualsSource(Path dir, SourceBinlog source) throws IOException {
    for (String f : source.files) {
      assertThat(Files.readAllBytes(dir.resolve(f)))
          .as(f + " equals the primary's")
          .isEqualTo(source.bytes.get(f));
    }
  }

  private static byte[] masked(byte[] b) {
    byte[] copy = b.clone();
    if (copy.length > IN_USE_BYTE) {
      copy[IN_USE_BYTE] &= ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
    }
    return copy;
  }
}
