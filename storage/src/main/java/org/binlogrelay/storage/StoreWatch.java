package org.binlogrelay.storage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A published, only-advancing position of the store (the readable or the durable boundary) that
 * other threads read, wait for, or subscribe to. {@link BinlogStore#readable()} is the boundary
 * readers never pass; {@link BinlogStore#durable()} is how far the stored bytes are forced to disk.
 *
 * <p>Waiting: {@link #whenReached} for a future (event loops), {@link #awaitReached} or {@link
 * #awaitChange} to block (a thread per reader; these queue nothing). A future that its caller
 * cancels, completes itself, or gives a timeout ({@link CompletableFuture#orTimeout}) leaves the
 * queue at once; one that is simply dropped stays queued until the position reaches its target or
 * the store stops, so a caller that gives up waiting should {@code cancel} the future it got (or
 * use {@link #awaitReached}).
 *
 * <p>Thread-safe. {@link #position()} is a volatile read. The store advances the position from its
 * writer or syncer thread; futures are completed and listeners called on that thread, after the
 * position is visible, so they must be quick and must not block (hand heavy work to an executor,
 * e.g. with {@code thenRunAsync}). A listener that throws is logged and otherwise ignored.
 */
public final class StoreWatch {
  private static final Logger LOG = LoggerFactory.getLogger(StoreWatch.class);

  private final String name;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final PriorityQueue<Waiter> waiters = new PriorityQueue<>();
  private final List<Consumer<Position>> listeners = new CopyOnWriteArrayList<>();
  private volatile Position position;
  private Throwable failure;

  StoreWatch(String name, Position initial) {
    this.name = name;
    this.position = initial;
  }

  /** The current position; {@code null} while the store holds no file. */
  public Position position() {
    return position;
  }

  /**
   * Waits until the position differs from {@code seen} (which may be {@code null}) or {@code
   * timeout} passes, and returns the position then (equal to {@code seen} on timeout). Returns at
   * once, with the last position, once the store is closed (or, for the durable boundary, failed):
   * see {@link #isStopped()}.
   */
  public Position awaitChange(Position seen, Duration timeout) throws InterruptedException {
    long remaining = timeout.toNanos();
    lock.lock();
    try {
      while (Objects.equals(position, seen) && remaining > 0 && failure == null) {
        remaining = changed.awaitNanos(remaining);
      }
      return position;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until the position is at or after {@code target} or {@code timeout} passes, and returns
   * the position then: before {@code target} on timeout, or at once once the store is closed (or,
   * for the durable boundary, failed; see {@link #isStopped()}). Queues nothing, so a wait that
   * times out costs nothing afterwards: the blocking counterpart of {@link #whenReached}, for a
   * thread per reader.
   */
  public Position awaitReached(Position target, Duration timeout) throws InterruptedException {
    Objects.requireNonNull(target, "target");
    long remaining = timeout.toNanos();
    lock.lock();
    try {
      while (!reached(position, target) && remaining > 0 && failure == null) {
        remaining = changed.awaitNanos(remaining);
      }
      return position;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A future completed with the position once it is at or after {@code target}; at once if it
   * already is. Completed exceptionally if the store fails or closes first. If the caller stops
   * waiting, it should cancel the future (see the class comment).
   */
  public CompletableFuture<Position> whenReached(Position target) {
    Objects.requireNonNull(target, "target");
    CompletableFuture<Position> future = new CompletableFuture<>();
    Waiter waiter = null;
    lock.lock();
    try {
      Position now = position;
      if (reached(now, target)) {
        future.complete(now);
      } else if (failure != null) {
        future.completeExceptionally(failure);
      } else {
        waiter = new Waiter(target, future);
        waiters.add(waiter);
      }
    } finally {
      lock.unlock();
    }
    if (waiter != null) {
      Waiter w = waiter;
      future.whenComplete((p, e) -> forget(w));
    }
    return future;
  }

  /**
   * True once the store closed (or, for the durable boundary, the syncer failed): it will not move
   * again.
   */
  public boolean isStopped() {
    lock.lock();
    try {
      return failure != null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Calls {@code listener} with every new position (on the store's thread, see the class comment).
   */
  public void addListener(Consumer<Position> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  public void removeListener(Consumer<Position> listener) {
    listeners.remove(listener);
  }

  /** Moves the position forward; a position not after the current one is ignored. */
  void advance(Position next) {
    advance(next, null);
  }

  /**
   * Moves the position forward and, if it moved, runs {@code publish} with it before anyone is
   * told: inside this watch's lock, after the new position is visible and before waits complete and
   * listeners run. The store publishes the state that goes with the position there (the GTID set at
   * the readable boundary), so that state is never ahead of {@link #position()} and is in place for
   * whoever the advance wakes. A position not after the current one is ignored (and {@code publish}
   * not run).
   */
  void advance(Position next, Consumer<Position> publish) {
    List<Waiter> done = null;
    lock.lock();
    try {
      Position now = position;
      if (now != null && next.compareTo(now) <= 0) {
        return;
      }
      position = next;
      if (publish != null) {
        publish.accept(next);
      }
      while (!waiters.isEmpty() && waiters.peek().target.compareTo(next) <= 0) {
        Waiter w = waiters.poll();
        w.queued = false;
        if (done == null) {
          done = new ArrayList<>();
        }
        done.add(w);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (done != null) {
      for (Waiter w : done) {
        w.future.complete(next);
      }
    }
    for (Consumer<Position> listener : listeners) {
      try {
        listener.accept(next);
      } catch (RuntimeException e) {
        LOG.warn("{} listener {} failed on {}; ignored", name, listener, next, e);
      }
    }
  }

  /** Fails every pending and future wait with {@code cause}; the position stays. */
  void fail(Throwable cause) {
    List<Waiter> pending;
    lock.lock();
    try {
      if (failure == null) {
        failure = cause;
      }
      pending = new ArrayList<>(waiters);
      waiters.clear();
      for (Waiter w : pending) {
        w.queued = false;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    for (Waiter w : pending) {
      w.future.completeExceptionally(cause);
    }
  }

  /**
   * Undoes {@link #fail} after the store resumed writing ({@link BinlogStore#tryResume()}): new
   * waits wait again. Waits that failed stay failed.
   */
  void revive() {
    lock.lock();
    try {
      failure = null;
    } finally {
      lock.unlock();
    }
  }

  /** Futures queued and not completed yet (for tests and metrics). */
  int pendingWaits() {
    lock.lock();
    try {
      return waiters.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return name + "=" + position;
  }

  private static boolean reached(Position now, Position target) {
    return now != null && now.compareTo(target) >= 0;
  }

  /**
   * A future completed by someone else (cancelled, timed out, completed by its holder) leaves the
   * queue.
   */
  private void forget(Waiter w) {
    if (!w.queued) {
      return; // completed by advance or fail, which took it off the queue already
    }
    lock.lock();
    try {
      if (w.queued) {
        waiters.remove(w);
        w.queued = false;
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * A queued future; identity equality, so removing one never removes another with the same target.
   */
  private static final class Waiter implements Comparable<Waiter> {
    final Position target;
    final CompletableFuture<Position> future;

    /** Still in the queue; written under the lock, read without it as a fast path. */
    volatile boolean queued = true;

    Waiter(Position target, CompletableFuture<Position> future) {
      this.target = target;
      this.future = future;
    }

    @Override
    public int compareTo(Waiter o) {
      return target.compareTo(o.target);
    }
  }
}
