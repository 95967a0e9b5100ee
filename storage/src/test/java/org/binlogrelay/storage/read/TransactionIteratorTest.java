package org.binlogrelay.storage.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.SourceFiles.Tx;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tracker-based iterator finds the same transactions as an independent walk of the fixture
 * files.
 */
class TransactionIteratorTest {
  @TempDir Path dir;

  @Test
  void findsEveryTransactionOfEveryFixtureFileFromAnyBoundary() throws IOException {
    for (SourceFiles source : SourceFiles.all()) {
      for (String f : source.files) {
        Path p = dir.resolve(f);
        Files.write(p, source.bytes(f));
        long length = source.bytes(f).length;
        try (FileChannel ch = FileChannel.open(p)) {
          for (long from : source.boundaries(f)) {
            List<Tx> expected =
                source.transactionsOf(f).stream().filter(t -> t.start() >= from).toList();
            TransactionIterator it =
                TransactionIterator.open(
                    f, ch, source.flavor, from, length, SourceFiles.MAX_EVENT_SIZE);
            assertThat(all(it, f)).as(f + " from " + from).isEqualTo(expected);
            assertThat(it.position()).isEqualTo(length);
            assertThat(it.atBoundary()).isTrue();
          }
        }
      }
    }
  }

  @Test
  void followsAGrowingLimit() throws IOException {
    for (SourceFiles source : SourceFiles.all()) {
      String f = source.lastFile();
      Path p = dir.resolve(f);
      Files.write(p, source.bytes(f));
      try (FileChannel ch = FileChannel.open(p)) {
        TransactionIterator it =
            TransactionIterator.open(f, ch, source.flavor, 4, 4, SourceFiles.MAX_EVENT_SIZE);
        List<Tx> found = new ArrayList<>();
        for (long limit : source.boundaries(f)) {
          it.limit(limit);
          found.addAll(all(it, f));
          assertThat(it.position()).isEqualTo(limit);
        }
        assertThat(found).isEqualTo(source.transactionsOf(f));
      }
    }
  }

  private static List<Tx> all(TransactionIterator it, String f) throws IOException {
    List<Tx> out = new ArrayList<>();
    for (StoredTransaction t = it.next(); t != null; t = it.next()) {
      assertThat(t.file()).isEqualTo(f);
      out.add(new Tx(f, t.start(), t.end(), t.gtid()));
    }
    return out;
  }
}
