package org.binlogrelay.server.serving;

import io.netty.util.internal.PlatformDependent;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How much direct memory the dumps' read buffers may hold together. A dump that reads on its own (a
 * catch-up) holds one buffer of up to {@link ServingConfig#maxBatchBytes()} until it caught up, and
 * the batch it frames from it takes about as much again in the channel's outbound buffer; with
 * 2,000 replicas catching up at once, full-size buffers would need about 1 GiB where the JVM allows
 * as much direct memory as heap (256 MiB with {@code -Xmx256m}), and the allocations that failed
 * ended the replicas' dumps. Past the budget, a dump gets a smaller buffer (down to {@link
 * #MIN_BYTES}): its batches are smaller, and every dump still progresses.
 *
 * <p>Thread-safe: the event loops share one budget.
 */
final class ReadBufferBudget {

  /** The smallest buffer a dump gets, however much is taken. */
  static final int MIN_BYTES = 16 << 10;

  /** The JVM's: a quarter of the direct memory it allows (read buffers, then as much framed). */
  static final ReadBufferBudget SHARED =
      new ReadBufferBudget(Math.max(MIN_BYTES, PlatformDependent.maxDirectMemory() / 4));

  private final long budgetBytes;
  private final AtomicLong taken = new AtomicLong();

  ReadBufferBudget(long budgetBytes) {
    if (budgetBytes < MIN_BYTES) {
      throw new IllegalArgumentException("a budget below " + MIN_BYTES + " bytes: " + budgetBytes);
    }
    this.budgetBytes = budgetBytes;
  }

  /**
   * Takes a buffer's size: {@code wanted} if the budget has it, else what is left of it rounded
   * down to 4 KiB, at least {@link #MIN_BYTES} (or {@code wanted} if smaller). Give it back with
   * {@link #giveBack}.
   */
  int take(int wanted) {
    int floor = Math.min(wanted, MIN_BYTES);
    while (true) {
      long before = taken.get();
      long left = budgetBytes - before;
      int size = left >= wanted ? wanted : (int) Math.max(floor, Math.min(wanted, left) & ~4095L);
      if (taken.compareAndSet(before, before + size)) {
        return size;
      }
    }
  }

  /** Gives back what {@link #take} gave. */
  void giveBack(int size) {
    taken.addAndGet(-size);
  }

  /** Bytes taken now. */
  long taken() {
    return taken.get();
  }

  long budgetBytes() {
    return budgetBytes;
  }
}
