package org.binlogrelay.storage.lookup;

import java.io.IOException;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.OpenedFile;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.StoredTransaction;
import org.binlogrelay.storage.read.TransactionFilter;
import org.binlogrelay.storage.read.TransactionIterator;

/**
 * The dry run behind a start lookup: the first transaction of the start file that a filter would
 * send, found with a copy of the filter (so the reader gets it untouched) and one scan of that
 * file's readable part, stopping at the first transaction sent. Stateless.
 */
final class FirstToSend {
  private FirstToSend() {}

  /**
   * The outcome of the dry run.
   *
   * @param position where the first transaction to send starts, or the file's readable end if every
   *     one so far is skipped
   * @param firstSkipped the file's first transaction is skipped
   */
  record Result(Position position, boolean firstSkipped) {}

  static Result find(BinlogSource store, String file, TransactionFilter filter) throws IOException {
    long readable = store.readableLength(file);
    TransactionFilter dryRun = filter.copy();
    try (OpenedFile opened = store.open(file)) {
      TransactionIterator transactions =
          TransactionIterator.open(
              file,
              opened.channel(),
              store.flavor(),
              BinlogFileName.FIRST_EVENT_OFFSET,
              readable,
              store.maxEventSize());
      boolean first = true;
      boolean firstSkipped = false;
      for (StoredTransaction t = transactions.next(); t != null; t = transactions.next()) {
        boolean skip = dryRun.skip(t);
        if (first) {
          firstSkipped = skip;
          first = false;
        }
        if (!skip) {
          return new Result(t.startPosition(), firstSkipped);
        }
      }
      return new Result(new Position(file, readable), firstSkipped);
    }
  }
}
