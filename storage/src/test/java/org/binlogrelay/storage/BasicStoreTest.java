package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BasicStoreTest {
  @TempDir
  Path dir;

  @Test
  void copiesEveryFixtureByteForByte() throws Exception {
    for (SourceBinlog source : SourceBinlog.all()) {
      Path d = dir.resolve(source.directory);
      StoreConfig config = StoreConfig.builder(d, source.flavor).build();
      try (BinlogStore store = BinlogStore.open(config)) {
        assertThat(store.startStream()).isEmpty();
        for (BinlogEvent e : source.dumpStream(Position.startOf(source.files.get(0)))) {
          store.append(e);
        }
        store.sync().get();
        assertThat(store.executedGtids()).isEqualTo(source.expectedFinalGtids());
      }
      for (String f : source.files) {
        assertThat(Files.readAllBytes(d.resolve(f))).as(f).isEqualTo(source.bytes.get(f));
      }
      try (BinlogStore store = BinlogStore.open(StoreConfig.builder(d, source.flavor).build())) {
        assertThat(store.recoveryReport().clean()).as(store.recoveryReport().toString()).isTrue();
        assertThat(store.executedGtids()).isEqualTo(source.expectedFinalGtids());
        String last = source.lastFile();
        assertThat(store.startStream()).isEqualTo(Optional.of(new Position(last, source.bytes.get(last).length)));
        assertThat(store.files()).extracting(FileMetadata::name).isEqualTo(source.files);
        for (String f : source.files) {
          assertThat(store.verify(f).ok()).isTrue();
        }
      }
      assertThat(Files.readAllLines(d.resolve(BinlogIndex.nameFor(source.files.get(0)))))
          .isEqualTo(source.files.stream().map(f -> "./" + f).toList());
    }
  }
}
