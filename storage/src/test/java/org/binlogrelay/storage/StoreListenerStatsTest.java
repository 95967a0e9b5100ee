package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The measurements the store reports to its listeners for the server's metrics. */
class StoreListenerStatsTest {
  @TempDir Path dir;

  @Test
  void reportsEveryTransactionBoundaryAndEveryForce() throws Exception {
    SourceBinlog source = SourceBinlog.mysql();
    List<Position> ends = new ArrayList<>();
    List<Long> timestamps = new ArrayList<>();
    AtomicLong forces = new AtomicLong();
    AtomicLong forcedTransactions = new AtomicLong();
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build())) {
      store.addListener(
          new StoreListener() {
            @Override
            public void transactionWritten(Position end, long eventTimestamp) {
              ends.add(end);
              timestamps.add(eventTimestamp);
            }

            @Override
            public void forced(long nanos, long transactions) {
              assertThat(nanos).isNotNegative();
              forces.incrementAndGet();
              forcedTransactions.addAndGet(transactions);
            }
          });
      store.startStream();
      for (BinlogEvent e : source.dumpStream(Position.startOf(source.files.get(0)))) {
        store.append(e);
      }
      store.sync().get();
      long expected = 0;
      for (String f : source.files) {
        expected += source.boundariesOf(f).size();
      }
      assertThat(ends).isSorted().hasSizeLessThanOrEqualTo((int) expected).isNotEmpty();
      assertThat(ends.get(ends.size() - 1)).isEqualTo(store.readableEnd());
      assertThat(timestamps).allMatch(t -> t > 1_500_000_000L);
      assertThat(forces.get()).isPositive();
      assertThat(forcedTransactions.get()).isEqualTo(ends.size());
    }
  }

  @Test
  void reportsAppendsRefusedWhileTheStoreIsStopped() throws Exception {
    SourceBinlog source = SourceBinlog.mysql();
    List<StoreCondition> refused = new ArrayList<>();
    Faults faults = new Faults();
    try (BinlogStore store = BinlogStore.open(Stores.config(dir, source).build(), faults)) {
      store.addListener(
          new StoreListener() {
            @Override
            public void appendRefused(StoreCondition condition) {
              refused.add(condition);
            }
          });
      Feed feed = new Feed(store, source).start();
      feed.append();
      faults.failAt(Faults.Op.WRITE, name -> name.startsWith("binlog."), 1);
      feed.appendUntilFailure();
      assertThat(store.health().condition()).isEqualTo(StoreCondition.IO_ERROR);
      Exception second = feed.appendUntilFailure();
      assertThat(second).isInstanceOf(StoreUnavailableException.class);
      assertThat(refused).isNotEmpty().allMatch(c -> c == StoreCondition.IO_ERROR);
    }
  }
}
