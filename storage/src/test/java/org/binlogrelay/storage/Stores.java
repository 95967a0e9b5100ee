package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.gtid.GtidSet;

/**
 * Test side: filling stores from a {@link SourceBinlog}, copying directories, checking contents.
 */
final class Stores {
  private Stores() {}

  static StoreConfig.Builder config(Path dir, SourceBinlog source) {
    return StoreConfig.builder(dir, source.flavor).maxEventSize(SourceBinlog.MAX_EVENT_SIZE);
  }

  /** Appends the whole source to a new store in {@code dir} and closes it. */
  static void fill(Path dir, SourceBinlog source) throws IOException {
    try (BinlogStore store = BinlogStore.open(config(dir, source).build())) {
      appendFrom(store, source);
    }
  }

  /** Calls startStream() and appends the source's dump stream from there to the end. */
  static void appendFrom(BinlogStore store, SourceBinlog source) throws IOException {
    Position start = store.startStream().orElse(Position.startOf(source.files.get(0)));
    for (BinlogEvent e : source.dumpStream(start)) {
      store.append(e);
    }
  }

  static void copyDirectory(Path from, Path to) {
    try (Stream<Path> files = Files.list(from)) {
      Files.createDirectories(to);
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, to.resolve(f.getFileName()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Replaces the open file's metadata with a checkpoint at {@code boundary} (a transaction
   * boundary).
   */
  static void writeCheckpoint(
      Path dir, SourceBinlog source, String file, long boundary, GtidSet before)
      throws IOException {
    BinlogFlavor flavor = BinlogFlavor.of(source.flavor);
    StoreDirectory d = new StoreDirectory(dir);
    try (FileChannel ch = FileChannel.open(dir.resolve(file), StandardOpenOption.READ)) {
      FileScan.Result r =
          new FileScan(flavor, SourceBinlog.MAX_EVENT_SIZE).fromStart(ch, file, boundary, before);
      assertThat(r.clean()).as("checkpoint scan: " + r.problem()).isTrue();
      MetadataFile.write(
          d, r.stats().snapshot(flavor, false, boundary, r.gtidsAtBoundary()), flavor);
    }
  }

  /**
   * The store holds exactly the source up to {@code end}: closed files whole, the open one a
   * prefix.
   */
  static void assertPrefixOfSource(Path dir, SourceBinlog source, Position end, boolean lastOpen)
      throws IOException {
    int last = source.files.indexOf(end.file());
    assertThat(last).as("end file " + end.file() + " is a source file").isGreaterThanOrEqualTo(0);
    for (int i = 0; i < source.files.size(); i++) {
      String f = source.files.get(i);
      Path p = dir.resolve(f);
      if (i < last) {
        assertThat(Files.readAllBytes(p))
            .as("closed file " + f + " equals the source")
            .isEqualTo(source.bytes.get(f));
      } else if (i == last) {
        byte[] stored = Files.readAllBytes(p);
        byte[] expected =
            lastOpen
                ? source.openPrefix(f, end.offset())
                : Arrays.copyOf(source.bytes.get(f), (int) end.offset());
        assertThat(stored.length).as("length of " + f).isEqualTo(end.offset());
        assertThat(stored)
            .as(f + " equals the source's first " + end.offset() + " bytes")
            .isEqualTo(expected);
      } else {
        assertThat(Files.exists(p)).as(f + " must not exist yet").isFalse();
      }
    }
  }

  /** The source's GTID set at a boundary (an end of a file counts as one). */
  static GtidSet sourceGtidsAt(SourceBinlog source, Position p) {
    Map.Entry<Long, GtidSet> e = source.boundariesOf(p.file()).floorEntry(p.offset());
    assertThat(e.getKey()).as(p + " is a source transaction boundary").isEqualTo(p.offset());
    return e.getValue();
  }

  /**
   * Offset of the event of {@code file} that contains byte {@code offset} (the event starting
   * there, if one does).
   */
  static long eventContaining(SourceBinlog source, String file, long offset) {
    byte[] b = source.bytes.get(file);
    long p = 4;
    if (offset < 4) {
      return 0;
    }
    while (p < b.length) {
      long size = EventHeader.parse(b, (int) p).eventSize();
      if (offset < p + size) {
        return p;
      }
      p += size;
    }
    return b.length;
  }
}
