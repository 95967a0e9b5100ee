package org.binlogrelay.storage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A published, only-advancing position of the store (the readable or the durable boundary) that other
 * threads read, wait for, or subscribe to. {@link BinlogStore#readable()} is the boundary readers never pass;
 * {@link BinlogStore#durable()} is how far the stored bytes are forced to disk.
 *
 * <p>Thread-safe. {@link #position()} is a volatile read. The store advances the position from its writer
 * or syncer thread; futures are completed and listeners called on that thread, after the position is
 * visible, so they must be quick and must not block (hand heavy work to an executor, e.g. with {@code
 * thenRunAsync}). A listener that throws is logged and otherwise ignored.
 */
public final class StoreWatch {
  private static final Logger log = LoggerFactory.getLogger(StoreWatch.class);

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
   * Waits until the position differs from {@code seen} (which may be {@code null}) or {@code timeout}
   * passes, and returns the position then (equal to {@code seen} on timeout). Returns at once, with the
   * last position, once the store is closed (or, for the durable boundary, failed): see {@link #isStopped()}.
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
   * A future completed with the position once it is at or after {@code target}; at once if it already is.
   * Completed exceptionally if the store fails or closes first.
   */
  public CompletableFuture<Position> whenReached(Position target) {
    Objects.requireNonNull(target, "target");
    CompletableFuture<Position> future = new CompletableFuture<>();
    lock.lock();
    try {
      Position now = position;
      if (now != null && now.compareTo(target) >= 0) {
        future.complete(now);
      } else if (failure != null) {
        future.completeExceptionally(failure);
      } else {
        waiters.add(new Waiter(target, future));
      }
    } finally {
      lock.unlock();
    }
    return future;
  }

  /** True once the store closed (or, for the durable boundary, the syncer failed): it will not move again. */
  public boolean isStopped() {
    lock.lock();
    try {
      return failure != null;
    } finally {
      lock.unlock();
    }
  }

  /** Calls {@code listener} with every new position (on the store's thread, see the class comment). */
  public void addListener(Consumer<Position> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  public void removeListener(Consumer<Position> listener) {
    listeners.remove(listener);
  }

  /** Moves the position forward; a position not after the current one is ignored. */
  void advance(Position next) {
    List<Waiter> done = new ArrayList<>();
    lock.lock();
    try {
      Position now = position;
      if (now != null && next.compareTo(now) <= 0) {
        return;
      }
      position = next;
      while (!waiters.isEmpty() && waiters.peek().target.compareTo(next) <= 0) {
        done.add(waiters.poll());
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    for (Waiter w : done) {
      w.future.complete(next);
    }
    for (Consumer<Position> listener : listeners) {
      try {
        listener.accept(next);
      } catch (RuntimeException e) {
        log.warn("{} listener {} failed on {}; ignored", name, listener, next, e);
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
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    for (Waiter w : pending) {
      w.future.completeExceptionally(cause);
    }
  }

  /**
   * Undoes {@link #fail} after the store resumed writing ({@link BinlogStore#tryResume()}): new waits wait again.
   * Waits that failed stay failed.
   */
  void revive() {
    lock.lock();
    try {
      failure = null;
    } finally {
      lock.unlock();
    }
  }

  /** For waits with a timeout: {@link CompletableFuture#get(long, TimeUnit)} on {@link #whenReached}. */
  @Override
  public String toString() {
    return name + "=" + position;
  }

  private record Waiter(Position target, CompletableFuture<Position> future) implements Comparable<Waiter> {
    @Override
    public int compareTo(Waiter o) {
      return target.compareTo(o.target);
    }
  }
}
