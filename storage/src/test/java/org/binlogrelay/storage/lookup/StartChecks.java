package org.binlogrelay.storage.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReader;
import org.binlogrelay.storage.read.CaughtUp;
import org.binlogrelay.storage.read.EventBatch;
import org.binlogrelay.storage.read.ReadResult;
import org.binlogrelay.storage.read.ReaderOptions;
import org.binlogrelay.storage.read.TransactionFilter;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.binlogrelay.storage.read.testing.SourceFiles.Tx;

/**
 * Test side: reading from a lookup's start with its filter sends exactly the transactions expected.
 */
final class StartChecks {
  private StartChecks() {}

  /**
   * Reads the store from {@code start} with {@code filter} to the end and checks that each file
   * from the start file on was sent whole except the transactions {@code skip} picks.
   */
  static void assertSends(
      BinlogSource store,
      SourceFiles source,
      Position start,
      TransactionFilter filter,
      Predicate<Tx> skip)
      throws IOException {
    List<String> files =
        source.files.subList(source.files.indexOf(start.file()), source.files.size());
    Map<String, ByteArrayOutputStream> sent = new LinkedHashMap<>();
    try (BinlogReader reader =
        BinlogReader.open(
            store, start, ReaderOptions.defaults().withFilter(filter).withMaxBatchBytes(777))) {
      for (ReadResult r = reader.poll(); !(r instanceof CaughtUp); r = reader.poll()) {
        if (r instanceof EventBatch b) {
          try (b) {
            sent.computeIfAbsent(b.file(), f -> new ByteArrayOutputStream())
                .writeBytes(b.toByteArray());
          }
        }
      }
    }
    for (String f : files) {
      byte[] bytes = source.bytes(f);
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      long at = 4;
      for (Tx t : source.transactionsOf(f)) {
        if (skip.test(t)) {
          expected.write(bytes, (int) at, (int) (t.start() - at));
          at = t.end();
        }
      }
      expected.write(bytes, (int) at, (int) (bytes.length - at));
      byte[] actual = sent.containsKey(f) ? sent.get(f).toByteArray() : new byte[0];
      assertThat(SourceFiles.firstDifference(actual, expected.toByteArray(), 4))
          .as("sent bytes of " + f)
          .isEqualTo(-1);
    }
  }
}
