package org.binlogrelay.protocol.testing;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Test side: the one way tests wait for something to happen (STYLE.md section 8, "waits are bounded
 * polls"). A condition is polled, a little less often as time goes by (every 5 ms at first, at most
 * every 200 ms), until it holds or {@code timeout} of real time has passed; then an {@link
 * AssertionError} says what was awaited and the last value observed. Bounds should be generous: a
 * bound only limits how long a broken test hangs, it is never a timing assertion. Tests that wait
 * for a clock to move use a manual clock instead (storage's test-jar, {@code ManualTime}). Shared
 * through protocol's test-jar. Stateless; each call polls on the calling thread.
 */
public final class Eventually {
  private static final long FIRST_PAUSE_MILLIS = 5;
  private static final long LONGEST_PAUSE_MILLIS = 200;

  private Eventually() {}

  /** A value read again at each poll. */
  @FunctionalInterface
  public interface Probe<T, E extends Exception> {
    T get() throws E;
  }

  /** A condition checked again at each poll. */
  @FunctionalInterface
  public interface Check<E extends Exception> {
    boolean holds() throws E;
  }

  /** Assertions run again at each poll until they pass. */
  @FunctionalInterface
  public interface Step {
    void run() throws Exception;
  }

  /**
   * Reads {@code probe} until its value satisfies {@code done}, and returns that value. An
   * exception from the probe ends the wait at once.
   *
   * @param what what is awaited, for the failure message ("replica caught up")
   * @throws AssertionError naming {@code what} and the last value read, if {@code timeout} passed
   *     first
   */
  public static <T, E extends Exception> T eventually(
      Duration timeout, String what, Probe<T, E> probe, Predicate<? super T> done)
      throws E, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = FIRST_PAUSE_MILLIS;
    while (true) {
      T value = probe.get();
      if (done.test(value)) {
        return value;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "waited " + timeout + " for " + what + "; last observed: " + value);
      }
      pause = pause(pause);
    }
  }

  /**
   * Checks {@code condition} until it holds. An exception from the check ends the wait at once.
   *
   * @throws AssertionError naming {@code what}, if {@code timeout} passed first
   */
  public static <E extends Exception> void eventually(
      Duration timeout, String what, Check<E> condition) throws E, InterruptedException {
    eventually(timeout, what, condition::holds, Boolean::booleanValue);
  }

  /**
   * Reads {@code probe} until its value stayed the same (by {@code equals}) for {@code quiet}, and
   * returns that value: for "the primary stopped writing", "nothing more is read". An exception
   * from the probe ends the wait.
   *
   * @throws AssertionError naming {@code what} and the last value read, if {@code timeout} passed
   *     first
   */
  public static <T, E extends Exception> T steady(
      Duration timeout, Duration quiet, String what, Probe<T, E> probe)
      throws E, InterruptedException {
    return steady(timeout, quiet, what, probe, value -> true);
  }

  /**
   * Reads {@code probe} until its value satisfies {@code done} and stayed the same (by {@code
   * equals}) for {@code quiet}: for "caught up with a primary that stopped writing".
   *
   * @throws AssertionError naming {@code what} and the last value read, if {@code timeout} passed
   *     first
   */
  public static <T, E extends Exception> T steady(
      Duration timeout, Duration quiet, String what, Probe<T, E> probe, Predicate<? super T> done)
      throws E, InterruptedException {
    Object[] last = {null};
    long[] since = {0};
    return eventually(
        timeout,
        what + ", unchanged for " + quiet,
        probe,
        value -> {
          long now = System.nanoTime();
          if (since[0] == 0 || !Objects.equals(value, last[0]) || !done.test(value)) {
            last[0] = value;
            since[0] = now;
            return false;
          }
          return now - since[0] >= quiet.toNanos();
        });
  }

  /**
   * Runs {@code assertions} until they pass: an {@link AssertionError} or an exception means "not
   * yet". Meant for what is observed through something that fails until it is ready (a server
   * starting, a file being written).
   *
   * @throws AssertionError with the last failure as its cause, if {@code timeout} passed first
   */
  public static void eventually(Duration timeout, Step assertions) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = FIRST_PAUSE_MILLIS;
    while (true) {
      Throwable last;
      try {
        assertions.run();
        return;
      } catch (InterruptedException e) {
        throw e;
      } catch (AssertionError | Exception e) {
        last = e;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("still failing after " + timeout + ": " + last, last);
      }
      pause = pause(pause);
    }
  }

  /** Pauses {@code millis} between two polls; returns the next pause. */
  private static long pause(long millis) throws InterruptedException {
    Thread.sleep(
        millis); // the poll interval: the condition is checked again afterwards, never assumed to
    // hold
    return Math.min(LONGEST_PAUSE_MILLIS, millis * 2);
  }
}
