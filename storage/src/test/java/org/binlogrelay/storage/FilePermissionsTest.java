package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Binlogs hold table data: the store's directory and every file it writes are its owner's only. */
class FilePermissionsTest {
  @TempDir Path dir;

  @Test
  void aNewStoreAndEveryFileItWritesAreOwnerOnly() throws Exception {
    SourceBinlog source = SourceBinlog.all().get(0);
    Path d = dir.resolve("parent").resolve("store");
    try (BinlogStore store = BinlogStore.open(StoreConfig.builder(d, source.flavor).build())) {
      store.startStream();
      for (BinlogEvent e : source.dumpStream(Position.startOf(source.files.get(0)))) {
        store.append(e);
      }
      store.sync().get();
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(d)))
        .isEqualTo("rwx------");
    List<Path> files;
    try (Stream<Path> list = Files.list(d)) {
      files = list.toList();
    }
    assertThat(files)
        .extracting(f -> f.getFileName().toString())
        .contains(source.files.toArray(String[]::new))
        .contains(BinlogIndex.nameFor(source.files.get(0)));
    for (Path f : files) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
          .as(f.toString())
          .isEqualTo("rw-------");
    }
  }

  @Test
  void anExistingDirectoryKeepsItsPermissions() throws Exception {
    Path d =
        Files.createDirectory(
            dir.resolve("given"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
    SourceBinlog source = SourceBinlog.all().get(0);
    try (BinlogStore store = BinlogStore.open(StoreConfig.builder(d, source.flavor).build())) {
      assertThat(store.files()).isEmpty();
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(d)))
        .isEqualTo("rwxr-x---");
  }
}
