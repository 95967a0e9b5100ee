package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.read.ReaderRegistry;
import org.binlogrelay.storage.retention.Retention;
import org.binlogrelay.storage.retention.RetentionPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ManualPurge} over a real, empty store: the relay-state gate, the retentions it uses, the
 * store's close.
 */
class ManualPurgeTest {
  @TempDir Path dir;

  private final AtomicReference<Relay.State> relay = new AtomicReference<>(Relay.State.STARTING);

  @Test
  void withoutAConfiguredRetentionTheFirstPurgeMakesOneThatKeepsEverythingElse() throws Exception {
    BinlogStore store = BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MYSQL).build());
    ManualPurge purges =
        new ManualPurge(store, new ReaderRegistry(), Time.SYSTEM, null, relay::get);
    assertThatThrownBy(() -> purges.purge("binlog.000001", false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the relay is starting");
    assertThat(purges.retentions()).isEmpty();
    relay.set(Relay.State.RUNNING);
    assertThat(purges.purge("binlog.000001", false).removed())
        .as("an empty store: nothing to remove")
        .isEmpty();
    assertThat(purges.retentions()).hasSize(1);
    relay.set(Relay.State.CLOSING);
    assertThatThrownBy(() -> purges.purge("binlog.000001", false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the relay is closing");
    purges.closeStore();
    assertThat(store.readable().isStopped()).isTrue();
  }

  @Test
  void aConfiguredRetentionIsTheOneUsed() throws Exception {
    BinlogStore store = BinlogStore.open(StoreConfig.builder(dir, GtidFlavor.MYSQL).build());
    ReaderRegistry readers = new ReaderRegistry();
    Retention configured =
        new Retention(
            store, RetentionPolicy.keepEverything().withMaxFiles(3), readers, Time.SYSTEM);
    ManualPurge purges = new ManualPurge(store, readers, Time.SYSTEM, configured, relay::get);
    relay.set(Relay.State.RUNNING);
    assertThat(purges.purge("binlog.000001", false).removed()).isEmpty();
    assertThat(purges.retentions()).containsExactly(configured);
    purges.closeStore();
  }
}
