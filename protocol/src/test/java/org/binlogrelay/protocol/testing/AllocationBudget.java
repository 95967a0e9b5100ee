package org.binlogrelay.protocol.testing;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.Supplier;

/**
 * Test side: how many heap bytes one call may allocate, checked with HotSpot's per-thread
 * allocation counter (exact: it includes the thread's current TLAB). Fuzz targets use it to show
 * that no length field read from the input drives an allocation: whatever the bytes claim, a parse
 * may allocate only in proportion to the bytes it was given.
 *
 * <p>The first call down a code path also pays for loading and linking classes, which is not the
 * parser's doing; so a call over budget is measured once more, and only a second call over budget
 * fails. The calls measured must be deterministic. Immutable; a call is measured on the calling
 * thread.
 *
 * @param bytes the most a call may allocate
 */
public record AllocationBudget(long bytes) {
  private static final ThreadMXBean THREADS = threads();

  /**
   * {@code fixed} bytes plus {@code perInputByte} for each of the {@code inputLength} input bytes.
   */
  public static AllocationBudget of(long fixed, long perInputByte, long inputLength) {
    return new AllocationBudget(fixed + perInputByte * inputLength);
  }

  /**
   * Runs {@code call} and returns what it returns, or rethrows the RuntimeException it threw, after
   * checking that it stayed within this budget; an AssertionError naming {@code what} otherwise.
   */
  public <T> T check(String what, Supplier<T> call) {
    long before = allocated();
    T result = null;
    RuntimeException thrown = null;
    try {
      result = call.get();
    } catch (RuntimeException e) {
      thrown = e;
    }
    long used = allocated() - before;
    if (used > bytes) {
      before = allocated();
      try {
        var unused = call.get();
      } catch (RuntimeException again) {
        // the outcome is the first call's; only its cost is measured again
      }
      used = allocated() - before;
      if (used > bytes) {
        throw new AssertionError(
            what
                + " allocated "
                + used
                + " bytes, over its budget of "
                + bytes
                + " (an allocation sized by an unchecked length field?)",
            thrown);
      }
    }
    if (thrown != null) {
      throw thrown;
    }
    return result;
  }

  /** {@link #check(String, Supplier)} for a call without a result. */
  public void check(String what, Runnable call) {
    check(
        what,
        () -> {
          call.run();
          return null;
        });
  }

  private static long allocated() {
    return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
  }

  private static ThreadMXBean threads() {
    if (!(ManagementFactory.getThreadMXBean() instanceof ThreadMXBean bean)
        || !bean.isThreadAllocatedMemorySupported()) {
      throw new IllegalStateException(
          "this JVM cannot count allocated bytes per thread; the fuzz targets need it");
    }
    bean.setThreadAllocatedMemoryEnabled(true);
    return bean;
  }
}
