package org.binlogrelay.server.serving;

import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The turns of one event loop's catch-ups (dumps reading on their own, far behind), run apart from
 * the loop's other tasks: each time the loop comes to them, they run for at most {@link
 * #SLICE_NANOS}, oldest first, and what is left waits for the loop's next round, behind the I/O and
 * tasks that came meanwhile. A caught-up replica's next batch, a login and a heartbeat therefore
 * wait for one slice of catch-up work, not for a turn of every replica catching up: with 2,000
 * replicas connecting to 8 loops, a turn each (up to 16 rounds of a batch) kept a caught-up
 * replica's loop away from it for more than its 10 s read timeout.
 *
 * <p>Not thread-safe: one per event loop thread ({@link #of}), used on it only.
 */
final class CatchUpTurns {
  /** The longest run of catch-up turns before the loop's other work goes first. */
  static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  private static final ThreadLocal<CatchUpTurns> PER_LOOP = new ThreadLocal<>();

  private final EventLoop loop;
  private final ArrayDeque<Runnable> turns = new ArrayDeque<>();
  private boolean scheduled;

  private CatchUpTurns(EventLoop loop) {
    this.loop = loop;
  }

  /** The turns of {@code loop}; called on its thread. */
  static CatchUpTurns of(EventLoop loop) {
    if (!loop.inEventLoop()) {
      throw new IllegalStateException("catch-up turns are taken on their event loop only");
    }
    CatchUpTurns turns = PER_LOOP.get();
    if (turns == null || turns.loop != loop) {
      turns = new CatchUpTurns(loop);
      PER_LOOP.set(turns);
    }
    return turns;
  }

  /** Runs {@code turn} in a later slice, after the turns already waiting. */
  void add(Runnable turn) {
    turns.addLast(turn);
    if (!scheduled) {
      scheduled = true;
      loop.execute(this::runSlice);
    }
  }

  /** Turns waiting (for tests). */
  int waiting() {
    return turns.size();
  }

  private void runSlice() {
    scheduled = false;
    long end = System.nanoTime() + SLICE_NANOS;
    Runnable turn;
    while ((turn = turns.pollFirst()) != null) {
      turn.run();
      if (System.nanoTime() - end >= 0) {
        break;
      }
    }
    if (!turns.isEmpty() && !scheduled) {
      scheduled = true;
      loop.execute(this::runSlice);
    }
  }
}
