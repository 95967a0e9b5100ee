package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreTailTest {
  @TempDir Path dir;

  @Test
  void aStoreWhoseOnlyFileRecoveryRemovedHasNoTailButResumesWithThatFile() throws Exception {
    // what a SIGKILL right after the first file was created leaves: the magic number, no
    // FORMAT_DESCRIPTION
    Files.write(dir.resolve("binlog.000001"), new byte[] {(byte) 0xfe, 'b', 'i', 'n'});
    try (BinlogStore store = BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MYSQL).build())) {
      assertThat(store.files()).isEmpty();
      Position resume = store.startStream().orElseThrow();
      assertThat(resume).isEqualTo(Position.startOf("binlog.000001"));
      assertThat(StoreTail.read(store, resume)).isEmpty();
    }
  }
}
