package org.binlogrelay.storage.read.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.SyncPolicy;

/** Test side: stores in temporary directories, filled by replaying a dump stream. */
public final class TestStores {
  private TestStores() {}

  /** Test defaults: 16 MiB events, sync every transaction (cheap on small tests). */
  public static StoreConfig.Builder config(Path dir, GtidFlavor flavor) {
    return StoreConfig.builder(dir, flavor).maxEventSize(SourceFiles.MAX_EVENT_SIZE);
  }

  /**
   * Opens a store in {@code dir} and appends every file of {@code source}; the last file stays
   * open.
   */
  public static BinlogStore filled(Path dir, SourceFiles source) throws IOException {
    BinlogStore store = BinlogStore.open(config(dir, source.flavor).build());
    try {
      store.startStream();
      append(store, source.dumpStream());
      return store;
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** Opens a store that does not force transactions (bulk tests), appends {@code events}. */
  public static BinlogStore unsynced(Path dir, GtidFlavor flavor, List<BinlogEvent> events)
      throws IOException {
    BinlogStore store = BinlogStore.open(config(dir, flavor).syncPolicy(SyncPolicy.off()).build());
    try {
      store.startStream();
      append(store, events);
      return store;
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * Waits (up to 2 minutes) until everything written is durable and every file but the last is
   * closed: closing and forcing happen on the store's syncer thread.
   */
  public static void settle(BinlogStore store) throws Exception {
    store.sync().get(2, TimeUnit.MINUTES);
    eventually(
        Duration.ofMinutes(2),
        () -> {
          List<FileMetadata> files = store.files();
          boolean closed =
              files.subList(0, Math.max(0, files.size() - 1)).stream()
                  .allMatch(FileMetadata::closed);
          Position readable = store.readableEnd();
          Position durable = store.durableEnd();
          assertThat(
                  closed && (readable == null || (durable != null && !durable.isBefore(readable))))
              .as("store settled: files %s, durable %s", files, durable)
              .isTrue();
        });
  }

  public static void append(BinlogStore store, List<BinlogEvent> events) throws IOException {
    for (BinlogEvent e : events) {
      store.append(e);
    }
  }
}
