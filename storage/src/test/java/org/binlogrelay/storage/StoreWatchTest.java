package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Waits on a boundary: completed when reached, failed when the store stops, and gone once
 * abandoned.
 */
class StoreWatchTest {
  private static final Position START = new Position("binlog.000001", 4);
  private static final Position FAR = new Position("binlog.000009", 4);

  @Test
  void thousandsOfTimedOutWaitsLeaveNothingQueued() throws Exception {
    StoreWatch watch = new StoreWatch("readable", START);
    for (int i = 0; i < 5_000; i++) {
      // A caller that gives up cancels its future: the watch forgets it at once.
      CompletableFuture<Position> f = watch.whenReached(FAR);
      assertThatThrownBy(() -> f.get(1, TimeUnit.MICROSECONDS))
          .isInstanceOf(TimeoutException.class);
      f.cancel(false);
      // A future with its own timeout.
      CompletableFuture<Position> g = watch.whenReached(FAR).orTimeout(1, TimeUnit.NANOSECONDS);
      assertThatThrownBy(g::join).hasCauseInstanceOf(TimeoutException.class);
      // A blocking wait queues nothing.
      assertThat(watch.awaitReached(FAR, Duration.ofNanos(1_000))).isEqualTo(START);
    }
    assertThat(watch.pendingWaits()).as("waits left queued").isZero();
  }

  @Test
  void aWaitCompletedElsewhereLeavesTheQueueAndTheOthersStillComplete() throws Exception {
    StoreWatch watch = new StoreWatch("readable", START);
    List<CompletableFuture<Position>> kept = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      CompletableFuture<Position> f = watch.whenReached(new Position("binlog.000001", 100 + i));
      if (i % 2 == 0) {
        f.complete(START); // whoever holds it may complete it
      } else {
        kept.add(f);
      }
    }
    assertThat(watch.pendingWaits()).isEqualTo(500);
    Position next = new Position("binlog.000001", 2_000);
    watch.advance(next);
    assertThat(watch.pendingWaits()).isZero();
    for (CompletableFuture<Position> f : kept) {
      assertThat(f.get(1, TimeUnit.SECONDS)).isEqualTo(next);
    }
  }

  @Test
  void waitsThatAreReachedCompleteAndLeave() throws Exception {
    StoreWatch watch = new StoreWatch("durable", null);
    CompletableFuture<Position> near = watch.whenReached(new Position("binlog.000001", 10));
    CompletableFuture<Position> far = watch.whenReached(FAR);
    assertThat(watch.pendingWaits()).isEqualTo(2);
    Position p = new Position("binlog.000002", 4);
    watch.advance(p);
    assertThat(near.get(1, TimeUnit.SECONDS)).isEqualTo(p);
    assertThat(far).isNotDone();
    assertThat(watch.pendingWaits()).isEqualTo(1);
    assertThat(watch.awaitReached(new Position("binlog.000001", 99), Duration.ofSeconds(1)))
        .isEqualTo(p);
    watch.fail(new IllegalStateException("closed"));
    assertThat(far).isCompletedExceptionally();
    assertThat(watch.pendingWaits()).isZero();
    assertThat(watch.awaitReached(FAR, Duration.ofSeconds(10)))
        .as("returns at once once stopped")
        .isEqualTo(p);
    assertThatThrownBy(() -> watch.whenReached(FAR).get()).isInstanceOf(ExecutionException.class);
    assertThat(watch.pendingWaits()).isZero();
  }

  @Test
  void aBlockingWaitWakesWhenTheBoundaryPassesItsTarget() throws Exception {
    StoreWatch watch = new StoreWatch("readable", START);
    Position target = new Position("binlog.000001", 500);
    CompletableFuture<Position> seen =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return watch.awaitReached(target, Duration.ofSeconds(30));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    watch.advance(new Position("binlog.000001", 400));
    assertThatThrownBy(() -> seen.get(20, TimeUnit.MILLISECONDS))
        .as("still waiting short of its target")
        .isInstanceOf(TimeoutException.class);
    watch.advance(new Position("binlog.000001", 600));
    assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo(new Position("binlog.000001", 600));
  }

  @Test
  void cancellingRacesWithAdvancingSafely() throws Exception {
    StoreWatch watch = new StoreWatch("readable", START);
    List<CompletableFuture<Position>> all = new ArrayList<>();
    Thread canceller =
        new Thread(
            () -> {
              for (int i = 0; i < 20_000; i++) {
                watch.whenReached(new Position("binlog.000001", 10_000 + i)).cancel(false);
              }
            });
    canceller.start();
    for (int i = 1; i <= 20_000; i++) {
      all.add(watch.whenReached(new Position("binlog.000001", 4 + i)));
      watch.advance(new Position("binlog.000001", 4 + i));
    }
    canceller.join();
    watch.advance(new Position("binlog.000002", 4));
    for (CompletableFuture<Position> f : all) {
      assertThat(f).isDone();
      assertThat(f.isCompletedExceptionally()).isFalse();
    }
    assertThat(watch.pendingWaits()).isZero();
  }
}
