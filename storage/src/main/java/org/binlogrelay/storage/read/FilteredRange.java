package org.binlogrelay.storage.read;

import java.io.IOException;

/**
 * The part of a file a reader reads with a {@link TransactionFilter}: decides, transaction by
 * transaction ({@link TransactionIterator}), what to send and what to skip, hands the parts to send
 * to the {@link BatchCutter} and reports runs of skipped transactions as {@link Skipped}. Once the
 * filter cannot match any more and everything decided was handed out, {@link #finished()} tells the
 * reader to go on without it.
 *
 * <p>Not thread-safe: part of one reader.
 */
final class FilteredRange {
  private final String file;
  private final TransactionIterator transactions;
  private final TransactionFilter filter;
  private final EventCursor cursor;
  private final BatchCutter batches;
  private final int maxBatchBytes;

  /** How many batch sizes one {@link Skipped} covers at most. */
  static final int MAX_SKIP_BATCHES = 16;

  /** A transaction read but not yet handed out, and the filter's verdict on it if already asked. */
  private StoredTransaction pending;

  private Boolean pendingSkip;

  /** Bytes before this offset are decided: send them. */
  private long sendUntil;

  private boolean exhausted;

  FilteredRange(
      TransactionIterator transactions,
      TransactionFilter filter,
      EventCursor cursor,
      BatchCutter batches,
      int maxBatchBytes) {
    this.file = transactions.file();
    this.transactions = transactions;
    this.filter = filter;
    this.cursor = cursor;
    this.batches = batches;
    this.maxBatchBytes = maxBatchBytes;
    this.sendUntil = transactions.position();
  }

  /** True once nothing more of the file can be skipped and everything decided was handed out. */
  boolean finished() {
    return exhausted && pending == null && cursor.position() >= sendUntil;
  }

  /**
   * The next batch or skipped run, reading up to {@code limit} (a transaction boundary past the
   * cursor).
   */
  ReadResult next(long limit) throws IOException {
    transactions.limit(limit);
    long position = cursor.position();
    if (position < sendUntil) {
      return batches.next(sendUntil);
    }
    StoredTransaction t = take();
    if (t == null) {
      sendUntil = limit; // only events outside transactions are left
      return batches.next(sendUntil);
    }
    if (t.start() > position) {
      hold(t, pendingSkip);
      sendUntil = t.start();
      return batches.next(sendUntil);
    }
    if (decide(t)) {
      return skipRun(t);
    }
    sendUntil = t.end();
    while (sendUntil - position < maxBatchBytes) {
      StoredTransaction u = take();
      if (u == null) {
        sendUntil = limit;
        break;
      }
      if (decide(u)) {
        hold(u, true);
        sendUntil = u.start();
        break;
      }
      sendUntil = u.end();
    }
    return batches.next(sendUntil);
  }

  /**
   * A run of skipped transactions from {@code first}, of at most {@link #MAX_SKIP_BATCHES} batch
   * sizes (then the next call goes on), so that one call reads a bounded part of the file: a
   * replica starting by GTID at the head of a large file does not hold its thread (an event loop
   * shared with other replicas) for the whole file.
   */
  private Skipped skipRun(StoredTransaction first) throws IOException {
    long to = first.end();
    int count = 1;
    long most = (long) maxBatchBytes * MAX_SKIP_BATCHES;
    while (to - first.start() < most) {
      StoredTransaction u = take();
      if (u == null) {
        break;
      }
      if (u.start() != to) {
        hold(u, null);
        break;
      }
      if (!decide(u)) {
        hold(u, false);
        break;
      }
      to = u.end();
      count++;
    }
    cursor.seek(to);
    sendUntil = to;
    if (pending == null && !filter.mayMatch()) {
      exhausted = true;
    }
    return new Skipped(file, first.start(), to, count);
  }

  /**
   * The pending transaction (its verdict stays in {@link #pendingSkip}) or the next one from the
   * file.
   */
  private StoredTransaction take() throws IOException {
    if (pending != null) {
      StoredTransaction t = pending;
      pending = null;
      return t;
    }
    pendingSkip = null;
    StoredTransaction t = transactions.next();
    if (t == null && !filter.mayMatch()) {
      exhausted = true;
    }
    return t;
  }

  private void hold(StoredTransaction t, Boolean verdict) {
    pending = t;
    pendingSkip = verdict;
  }

  private boolean decide(StoredTransaction t) {
    if (pendingSkip == null) {
      pendingSkip = filter.skip(t);
    }
    boolean skip = pendingSkip;
    pendingSkip = null;
    return skip;
  }
}
