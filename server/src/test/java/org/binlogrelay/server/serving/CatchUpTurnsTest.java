package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Catch-up turns run in slices, oldest first, and the loop's other tasks go between slices. */
class CatchUpTurnsTest {
  private final EventLoop loop = new DefaultEventLoop();

  @AfterEach
  void stop() throws InterruptedException {
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
  }

  @Test
  void turnsRunOldestFirstAndATurnAddedMeanwhileRunsAfterThoseWaiting() throws Exception {
    List<String> ran = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(1);
    loop.execute(
        () -> {
          CatchUpTurns turns = CatchUpTurns.of(loop);
          assertThat(CatchUpTurns.of(loop)).as("one per loop").isSameAs(turns);
          turns.add(
              () -> {
                ran.add("a");
                turns.add(
                    () -> {
                      ran.add("a again");
                      done.countDown();
                    });
              });
          turns.add(() -> ran.add("b"));
          turns.add(() -> ran.add("c"));
        });
    assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(ran).containsExactly("a", "b", "c", "a again");
  }

  @Test
  void aSliceEndsAfterItsTimeAndTheLoopsOtherTasksGoBeforeTheNextOne() throws Exception {
    List<String> ran = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(1);
    loop.execute(
        () -> {
          CatchUpTurns turns = CatchUpTurns.of(loop);
          turns.add(
              () -> {
                ran.add("long turn");
                loop.execute(() -> ran.add("a login"));
                long until = System.nanoTime() + 2 * CatchUpTurns.SLICE_NANOS;
                while (System.nanoTime() < until) {
                  Thread.onSpinWait(); // a turn that used up the slice
                }
              });
          turns.add(
              () -> {
                ran.add("next turn");
                done.countDown();
              });
        });
    assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(ran).containsExactly("long turn", "a login", "next turn");
  }

  @Test
  void takenOnItsLoopOnly() {
    assertThatThrownBy(() -> CatchUpTurns.of(loop)).isInstanceOf(IllegalStateException.class);
  }
}
