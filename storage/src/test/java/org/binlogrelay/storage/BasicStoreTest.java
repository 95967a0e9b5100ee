package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BasicStoreTest {
  @TempDir Path dir;

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
        assertThat(store.startStream())
            .isEqualTo(Optional.of(new Position(last, source.bytes.get(last).length)));
        assertThat(store.files()).extracting(FileMetadata::name).isEqualTo(source.files);
        for (String f : source.files) {
          assertThat(store.verify(f).ok()).isTrue();
        }
      }
      assertThat(Files.readAllLines(d.resolve(BinlogIndex.nameFor(source.files.get(0)))))
          .isEqualTo(source.files.stream().map(f -> "./" + f).toList());
    }
  }

  @Test
  void refusesAStreamOfTheOtherFlavour() throws Exception {
    SourceBinlog source = SourceBinlog.mysql();
    try (BinlogStore store =
        BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MARIADB).build())) {
      assertThat(store.startStream()).isEmpty();
      List<BinlogEvent> stream = source.dumpStream(Position.startOf(source.files.get(0)));
      assertThatThrownBy(
              () -> {
                for (BinlogEvent e : stream) {
                  store.append(e);
                }
              })
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("is configured for MARIADB; nothing was written");
    }
    assertThat(Files.exists(dir.resolve(source.files.get(0)))).isFalse();
  }

  @Test
  void refusesToRecoverFilesOfTheOtherFlavour() throws Exception {
    SourceBinlog source = SourceBinlog.mysql();
    Stores.fill(dir, source);
    for (String f : source.files) {
      Files.delete(dir.resolve(MetadataFile.nameFor(f)));
    }
    assertThatThrownBy(
            () -> BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MARIADB).build()).close())
        .isInstanceOf(StoreCorruptException.class)
        .hasMessageContaining(
            "is configured for MARIADB but " + source.files.get(0) + " was written by")
        .hasMessageContaining("open it with the right flavour");
  }
}
