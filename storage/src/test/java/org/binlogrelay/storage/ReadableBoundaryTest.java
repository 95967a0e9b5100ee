package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What readers and retention see: the readable boundary, file lengths, removal of old files. */
class ReadableBoundaryTest {
  @TempDir Path dir;

  @Test
  void theReadableBoundaryOnlyStopsAtTransactionBoundariesWithTheRightGtidSet() throws IOException {
    for (SourceBinlog source : SourceBinlog.all()) {
      Path d = dir.resolve(source.directory);
      try (BinlogStore store = BinlogStore.open(Stores.config(d, source).build())) {
        store.startStream();
        Position previous = null;
        int checked = 0;
        for (BinlogEvent e : source.dumpStream(Position.startOf(source.files.get(0)))) {
          store.append(e);
          Position readable = store.readableEnd();
          if (readable == null || readable.equals(previous)) {
            continue;
          }
          assertThat(source.boundariesOf(readable.file()))
              .as(readable + " is a transaction boundary")
              .containsKey(readable.offset());
          assertThat(store.executedGtids())
              .as("set at " + readable)
              .isEqualTo(Stores.sourceGtidsAt(source, readable));
          assertThat(store.readableLength(readable.file())).isEqualTo(readable.offset());
          assertThat(store.file(readable.file()).orElseThrow().size()).isEqualTo(readable.offset());
          previous = readable;
          checked++;
        }
        assertThat(checked).isGreaterThan(20);
        for (String f : source.files.subList(0, source.files.size() - 1)) {
          assertThat(store.readableLength(f)).isEqualTo(source.bytes.get(f).length);
          assertThat(store.nextFile(f)).contains(source.files.get(source.files.indexOf(f) + 1));
        }
        assertThat(store.nextFile(source.lastFile())).isEmpty();
        assertThat(store.currentFile()).contains(source.lastFile());
        assertThatThrownBy(() -> store.readableLength("binlog.000099"))
            .isInstanceOf(NoSuchElementException.class);
      }
    }
  }

  @Test
  void removingOldFilesRewritesTheIndexAndMovesPurgedGtids() throws Exception {
    SourceBinlog source = SourceBinlog.mariadb();
    List<List<String>> heard = new ArrayList<>();
    String first = source.files.get(0);
    String second = source.files.get(1);
    String third = source.files.get(2);
    Stores.fill(dir, source);
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      store.addListener(
          new StoreListener() {
            @Override
            public void filesRemoved(List<String> names) {
              heard.add(names);
            }
          });
      assertThat(store.purgedGtids().isEmpty()).isTrue();
      try (FileChannel reader = store.openFile(first)) {
        assertThat(store.removeFilesBefore(third)).containsExactly(first, second);
        ByteBuffer all = ByteBuffer.allocate(source.bytes.get(first).length);
        while (all.hasRemaining() && reader.read(all) > 0) {
          // a reader with the file open keeps reading it after removal
        }
        assertThat(all.array()).isEqualTo(source.bytes.get(first));
      }
      assertThat(heard).containsExactly(List.of(first, second));
      assertThat(store.files()).extracting(FileMetadata::name).containsExactly(third);
      assertThat(store.purgedGtids()).isEqualTo(source.boundariesOf(third).firstEntry().getValue());
      assertThat(store.purgedGtids().toString())
          .isEqualTo(source.expected.getProperty("file." + third + ".gtid_list"));
      assertThat(Files.exists(dir.resolve(first))).isFalse();
      assertThat(Files.exists(dir.resolve(MetadataFile.nameFor(second)))).isFalse();
      assertThat(Files.readAllLines(dir.resolve("mariadb-bin.index")))
          .containsExactly("./" + third);
      assertThatThrownBy(() -> store.openFile(first)).isInstanceOf(NoSuchFileException.class);
      assertThatThrownBy(() -> store.removeFilesBefore("mariadb-bin.000042"))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(store.removeFilesBefore(third)).isEmpty();
    }
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      assertThat(store.recoveryReport().clean()).isTrue();
      assertThat(store.executedGtids()).isEqualTo(source.expectedFinalGtids());
    }
  }

  @Test
  void aStoreStartingAtALaterFileKnowsWhatCameBefore() throws IOException {
    for (SourceBinlog source : SourceBinlog.all()) {
      Path d = dir.resolve("later-" + source.directory);
      String second = source.files.get(1);
      try (BinlogStore store = BinlogStore.open(Stores.config(d, source).build())) {
        store.startStream();
        List<BinlogEvent> stream = source.dumpStream(Position.startOf(second));
        int i = 0;
        while (store.file(second).map(f -> f.transactions() < 2).orElse(true)) {
          store.append(stream.get(i++));
        }
        // The primary purged the first file: what came before is the second file's header set.
        assertThat(store.purgedGtids())
            .isEqualTo(source.boundariesOf(second).firstEntry().getValue());
        FileMetadata open = store.file(second).orElseThrow();
        assertThat(open.closed()).isFalse();
        assertThat(open.gtidsAtStart()).isEqualTo(store.purgedGtids());
        assertThat(open.firstGtid())
            .isEqualTo(source.expected.getProperty("file." + second + ".gtids").split(",")[0]);
        assertThat(open.size()).isEqualTo(store.readableEnd().offset());
        assertThat(open.gtidsAtEnd()).isEqualTo(store.executedGtids());
      }
    }
  }
}
