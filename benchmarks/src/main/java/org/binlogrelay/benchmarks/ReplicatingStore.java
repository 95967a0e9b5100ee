package org.binlogrelay.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.SyncPolicy;

/**
 * A fresh store in its own benchmark directory, connected to a {@link SyntheticPrimary}: the
 * relay's writer thread with the network taken out. {@link #transaction()} stores the primary's
 * next transaction; {@link #trim()} (between measurements) waits until everything is durable and
 * removes the closed files, so long runs do not fill the disk. Not thread-safe: the benchmark
 * thread is the store's writer.
 */
final class ReplicatingStore implements AutoCloseable {
  private final Path dir;
  private final BinlogStore store;
  private final SyntheticPrimary primary;
  private final SyntheticPrimary.Sink sink;

  private ReplicatingStore(Path dir, BinlogStore store, SyntheticPrimary primary) {
    this.dir = dir;
    this.store = store;
    this.primary = primary;
    this.sink = store::append;
  }

  /**
   * Opens an empty store in {@code root/name} with {@code policy} and starts the primary's stream
   * into it.
   *
   * @param policy the sync policy, in the configuration form ({@link SyncPolicy#parse})
   */
  static ReplicatingStore start(String name, String policy, int transactionBytes, long maxFileBytes)
      throws IOException {
    SyntheticPrimary primary = new SyntheticPrimary(transactionBytes, maxFileBytes);
    Path dir = BenchDirectory.fresh(name);
    BinlogStore store =
        BinlogStore.open(
            StoreConfig.builder(dir, GtidFlavor.MYSQL)
                .syncPolicy(SyncPolicy.parse(policy))
                .build());
    if (store.startStream().isPresent()) {
      store.close();
      throw new IllegalStateException("the fresh store in " + dir + " is not empty");
    }
    ReplicatingStore s = new ReplicatingStore(dir, store, primary);
    primary.connect(s.sink);
    return s;
  }

  /**
   * Stores the next transaction; returns the bytes it added to the files (a rotation's included).
   */
  long transaction() throws IOException {
    return primary.transaction(sink);
  }

  /** The end of the last transaction stored (a transaction boundary). */
  Position end() {
    return primary.position();
  }

  BinlogStore store() {
    return store;
  }

  SyntheticPrimary primary() {
    return primary;
  }

  /**
   * Waits until everything written is durable, then removes every file before the one being
   * written.
   */
  void trim() throws IOException {
    try {
      store.sync().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for " + dir + " to become durable", e);
    } catch (ExecutionException e) {
      throw new IOException("forcing " + dir + " failed", e.getCause());
    }
    store.removeFilesBefore(primary.position().file());
  }

  /** Closes the store and deletes its directory. */
  @Override
  public void close() throws IOException {
    try {
      store.close();
    } finally {
      BenchDirectory.delete(dir);
    }
  }
}
