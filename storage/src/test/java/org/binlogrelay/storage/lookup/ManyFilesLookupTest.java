package org.binlogrelay.storage.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.gtid.MariadbGtidSet;
import org.binlogrelay.protocol.gtid.MysqlGtidSet;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.testing.SyntheticBinlog;
import org.binlogrelay.storage.read.testing.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GTID lookup among 1,000 stored files reads metadata only, then the start file: every other file
 * is overwritten with zeros first, so reading any of them would fail. (How fast that is belongs to
 * LookupBenchmark, not to a test.)
 */
class ManyFilesLookupTest {
  private static final int FILES = 1000;
  private static final int PER_FILE = 2;
  private static final int START = 500;

  @TempDir Path dir;

  @Test
  void mysqlLookupAmongAThousandFiles() throws Exception {
    SyntheticBinlog b = SyntheticBinlog.mysql();
    try (BinlogStore store = TestStores.unsynced(dir, b.flavor(), build(b))) {
      TestStores.settle(store);
      List<FileMetadata> files = store.files();
      assertThat(files).hasSize(FILES);
      String start = files.get(START).name();
      zeroAllBut(store, files, start);
      // The replica has everything before file START and its first transaction.
      MysqlGtidSet replica =
          MysqlGtidSet.parse(SyntheticBinlog.SOURCE + ":1-" + (START * PER_FILE + 1));
      MysqlStart.Found found =
          (MysqlStart.Found)
              new MysqlStartLookup(store).find(replica, Set.of(SyntheticBinlog.SOURCE));
      assertThat(found.start()).isEqualTo(Position.startOf(start));
      assertThat(found.firstTransactionSkipped()).isTrue();
      assertThat(found.firstToSend().file()).isEqualTo(start);
      assertThat(found.firstToSend().offset()).isGreaterThan(4);
    }
  }

  @Test
  void mariadbLookupAmongAThousandFiles() throws Exception {
    SyntheticBinlog b = SyntheticBinlog.mariadb();
    try (BinlogStore store = TestStores.unsynced(dir, b.flavor(), build(b))) {
      TestStores.settle(store);
      List<FileMetadata> files = store.files();
      String start = files.get(START).name();
      zeroAllBut(store, files, start);
      MariadbGtidSet position = MariadbGtidSet.parsePosition("0-1-" + (START * PER_FILE + 1));
      MariadbStart.Found found =
          (MariadbStart.Found) new MariadbStartLookup(store).find(position, true, false);
      assertThat(found.start()).isEqualTo(Position.startOf(start));
      assertThat(found.firstToSend().file()).isEqualTo(start);
    }
  }

  private static List<BinlogEvent> build(SyntheticBinlog b) {
    b.startFile(name(0)).transactions(PER_FILE);
    for (int i = 1; i < FILES; i++) {
      b.rotateTo(name(i)).transactions(PER_FILE);
    }
    return b.drain();
  }

  private static String name(int i) {
    return String.format("binlog.%06d", i + 1);
  }

  private static void zeroAllBut(BinlogStore store, List<FileMetadata> files, String keep)
      throws Exception {
    for (FileMetadata f : files) {
      if (f.name().equals(keep)) {
        continue;
      }
      try (FileChannel ch =
          FileChannel.open(store.directory().resolve(f.name()), StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.allocate((int) ch.size()), 0);
      }
    }
  }
}
