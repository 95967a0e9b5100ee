package org.binlogrelay.storage.read;

/**
 * How a {@link BinlogReader} reads. Immutable; start from {@link #defaults()}.
 *
 * @param maxBatchBytes a batch ends at the last transaction boundary within this many bytes (see
 *     {@link EventBatch} for a transaction larger than that)
 * @param filter transactions to skip (GTID auto-position), {@code null} to send everything
 * @param registry where the reader registers its position for retention, {@code null} for none
 * @param name the reader's name in the registry and in messages (e.g. the replica's server id and
 *     address)
 */
public record ReaderOptions(
    int maxBatchBytes, TransactionFilter filter, ReaderRegistry registry, String name) {
  public static final int DEFAULT_MAX_BATCH_BYTES = 1 << 20;

  public ReaderOptions {
    if (maxBatchBytes < 1) {
      throw new IllegalArgumentException("maxBatchBytes must be positive, got " + maxBatchBytes);
    }
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a reader needs a name for messages and the registry");
    }
  }

  /** 1 MiB batches, no filter, no registry, named "reader". */
  public static ReaderOptions defaults() {
    return new ReaderOptions(DEFAULT_MAX_BATCH_BYTES, null, null, "reader");
  }

  public ReaderOptions withMaxBatchBytes(int bytes) {
    return new ReaderOptions(bytes, filter, registry, name);
  }

  public ReaderOptions withFilter(TransactionFilter value) {
    return new ReaderOptions(maxBatchBytes, value, registry, name);
  }

  public ReaderOptions withRegistry(ReaderRegistry value) {
    return new ReaderOptions(maxBatchBytes, filter, value, name);
  }

  public ReaderOptions withName(String value) {
    return new ReaderOptions(maxBatchBytes, filter, registry, value);
  }
}
