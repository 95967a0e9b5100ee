package org.binlogrelay.storage;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The background thread that makes written bytes durable, so the writer never waits for a disk. The
 * writer reports each boundary it writes ({@link #written}) and hands over ordered {@link Job}s:
 * registering a new file in the index, a checkpoint, the final force and metadata of a closed file.
 * Each round the syncer takes, atomically, the jobs queued so far and the last written boundary;
 * runs the jobs in order; forces the current file if the {@link SyncPolicy} says so (or {@link
 * #requestSync} asked); then advances the durable boundary to the furthest position made durable.
 * Group commit falls out of this: every transaction written while a force runs is covered by the
 * next one. The writer wakes the thread only when the policy can act ({@link #written}); the thread
 * re-checks the policy after every round, so nothing written while it was busy waits for another
 * transaction to come.
 *
 * <p>Ordering makes the durable boundary honest across rotations: a file's close job (final force
 * and metadata) runs before any force of the next file, and a new file's index entry and directory
 * entry are forced before anything in it counts as durable.
 *
 * <p>An I/O error (disk full, EIO) fails the syncer and ends its thread: pending and future waits
 * for durability fail, the job that failed and the jobs after it stay queued, and {@code onFailure}
 * stops the store ({@link Availability}). The durable boundary stays where the last complete round
 * left it: what a failed round forced is not counted. {@link BinlogStore#tryResume()} then stops
 * this syncer for good ({@link #stop()}, which {@linkplain Job#abandon abandons} the jobs left) and
 * starts a new one after recovering the directory in place. Thread-safe: {@link #written}, {@link
 * #submit} and {@link #requestSync} are the writer's and return at once.
 */
final class Syncer {
  /**
   * A unit of background work; returns the position it made durable, or {@code null}. Its {@code
   * toString()} says what it does and to which file, for error messages.
   */
  interface Job {
    Position run() throws IOException;

    /** The job will never run (the syncer failed and was stopped): release what it holds. */
    default void abandon() {}

    /**
     * True if the job forced a binlog file and that force failed ({@link
     * BinlogFile#forceFailed()}).
     */
    default boolean forceFailed() {
      return false;
    }
  }

  private final SyncPolicy policy;
  private final Time time;
  private final StoreWatch durable;
  private final Consumer<Position> onDurable;
  private final BiConsumer<String, Throwable> onFailure;
  private final ForceObserver observer;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private final ArrayDeque<Job> jobs = new ArrayDeque<>();
  private final List<CompletableFuture<Position>> syncRequests = new ArrayList<>();
  private final Thread thread;
  private Position written;
  private BinlogFile writtenFile;
  private long transactionsSinceForce;
  private long lastForceNanos;
  private boolean stopping;
  private Throwable failure;
  private boolean forceFailed;

  /** The thread waits for work with no deadline: only a signal wakes it. */
  private boolean parked;

  private long signals;
  private long forces;

  /** Hears each force of the open file: how long it took and how many transactions it covered. */
  @FunctionalInterface
  interface ForceObserver {
    ForceObserver NONE = (nanos, transactions) -> {};

    void forced(long nanos, long transactions);
  }

  Syncer(
      String name,
      SyncPolicy policy,
      Time time,
      StoreWatch durable,
      Position initial,
      Consumer<Position> onDurable,
      BiConsumer<String, Throwable> onFailure) {
    this(name, policy, time, durable, initial, onDurable, onFailure, ForceObserver.NONE);
  }

  /**
   * @param durable the boundary this syncer advances
   * @param onDurable called after each advance (the store moves the readable boundary when it
   *     follows the durable one)
   * @param onFailure called once with what failed (e.g. "forcing binlog.000003 up to 1234") and the
   *     error
   */
  Syncer(
      String name,
      SyncPolicy policy,
      Time time,
      StoreWatch durable,
      Position initial,
      Consumer<Position> onDurable,
      BiConsumer<String, Throwable> onFailure,
      ForceObserver observer) {
    this.policy = policy;
    this.observer = observer;
    this.time = time;
    this.durable = durable;
    this.onDurable = onDurable;
    this.onFailure = onFailure;
    this.written = initial;
    this.lastForceNanos = time.nanoseconds();
    this.thread = new Thread(this::run, name);
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /**
   * The writer wrote up to {@code boundary} (a transaction boundary) in {@code file}. Wakes the
   * thread only when the policy can act on it: waking a sleeping thread is a system call for the
   * writer and a context switch, and doing it for every transaction costs more CPU than the
   * writing. So: every-transaction, when the thread is waiting for work (while it forces, the
   * transactions written meanwhile are what its next round forces: group commit); every-N, once N
   * transactions are waiting; an interval, only to start its timer (the thread then wakes when the
   * force is due); never for {@code off}.
   */
  void written(Position boundary, BinlogFile file, boolean transaction) {
    lock.lock();
    try {
      written = boundary;
      writtenFile = file;
      if (transaction) {
        transactionsSinceForce++;
      }
      if (parked && policy.wakesSyncer(transactionsSinceForce)) {
        parked = false;
        signals++;
        wake.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** How many times {@link #written} woke the thread (for tests). */
  long signals() {
    lock.lock();
    try {
      return signals;
    } finally {
      lock.unlock();
    }
  }

  /** Rounds that forced the file (for tests). */
  long forces() {
    lock.lock();
    try {
      return forces;
    } finally {
      lock.unlock();
    }
  }

  /** Queues {@code job} after every job queued before. */
  void submit(Job job) {
    lock.lock();
    try {
      jobs.add(job);
      parked = false;
      wake.signal();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Forces everything written so far, whatever the policy; completes with the durable position
   * after it.
   */
  CompletableFuture<Position> requestSync() {
    CompletableFuture<Position> f = new CompletableFuture<>();
    lock.lock();
    try {
      if (failure != null) {
        f.completeExceptionally(failure);
      } else if (stopping && !thread.isAlive()) {
        f.completeExceptionally(
            new IllegalStateException(
                "the syncer stopped: the store is closed, or stopped by a"
                    + " disk error and not resumed yet"));
      } else {
        syncRequests.add(f);
        parked = false;
        wake.signal();
      }
    } finally {
      lock.unlock();
    }
    return f;
  }

  /** Runs a last round that forces everything, then stops the thread. */
  void stop() throws InterruptedException {
    lock.lock();
    try {
      stopping = true;
      wake.signal();
    } finally {
      lock.unlock();
    }
    thread.join();
    List<CompletableFuture<Position>> late;
    List<Job> left;
    lock.lock();
    try {
      late = new ArrayList<>(syncRequests);
      syncRequests.clear();
      left = new ArrayList<>(jobs);
      jobs.clear();
    } finally {
      lock.unlock();
    }
    for (CompletableFuture<Position> r : late) {
      r.completeExceptionally(
          new IllegalStateException("the store closed before this sync could run"));
    }
    for (Job job : left) {
      job.abandon();
    }
  }

  /**
   * True if the failure was a binlog file's force: nothing after the durable boundary can be taken
   * as written then (see {@link BinlogFile#forceFailed()}).
   */
  boolean forceFailed() {
    lock.lock();
    try {
      return forceFailed;
    } finally {
      lock.unlock();
    }
  }

  Throwable failure() {
    lock.lock();
    try {
      return failure;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The thread: a round at a time until a round fails or the last one (after {@link #stop()}) ran.
   */
  private void run() {
    while (true) {
      List<Job> round;
      List<CompletableFuture<Position>> requests;
      Position target;
      BinlogFile targetFile;
      boolean force;
      boolean last;
      long covered = 0;
      lock.lock();
      try {
        force = awaitWork();
        round = new ArrayList<>(jobs);
        jobs.clear();
        requests = new ArrayList<>(syncRequests);
        syncRequests.clear();
        target = written;
        targetFile = writtenFile;
        last = stopping;
        if (force) {
          forces++;
          covered = transactionsSinceForce;
          transactionsSinceForce = policy.waitingAfterForce(transactionsSinceForce);
          lastForceNanos = time.nanoseconds();
        }
      } finally {
        lock.unlock();
      }
      if (!runRound(round, requests, target, targetFile, force, covered) || last) {
        return;
      }
    }
  }

  /**
   * Waits until there is work: jobs, sync requests, a stop, or a force the policy wants now; with
   * no deadline (parked, only a signal wakes it) when the policy wants none for transactions alone.
   * Returns whether the round forces the file. Under the lock.
   */
  private boolean awaitWork() {
    while (true) {
      long wait =
          policy.nanosUntilDue(
              isBehind(), transactionsSinceForce, time.nanoseconds() - lastForceNanos);
      if (stopping || !jobs.isEmpty() || !syncRequests.isEmpty() || wait == 0) {
        return stopping || !syncRequests.isEmpty() || wait == 0;
      }
      if (wait == Long.MAX_VALUE) {
        parked = true;
        wake.awaitUninterruptibly();
        parked = false;
      } else {
        try {
          wake.awaitNanos(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          stopping = true;
        }
      }
    }
  }

  /**
   * Runs one round taken by {@link #run()}: its jobs in order, then, if {@code force}, the force of
   * {@code targetFile} up to {@code target}; advances the durable boundary to the furthest position
   * made durable and completes the round's sync requests. On an error, puts the jobs not run back,
   * fails the syncer, and returns false. Without the lock.
   *
   * @param covered transactions the force covers (for the {@link ForceObserver})
   */
  private boolean runRound(
      List<Job> round,
      List<CompletableFuture<Position>> requests,
      Position target,
      BinlogFile targetFile,
      boolean force,
      long covered) {
    int done = 0;
    String doing = null;
    try {
      Position reached = null;
      for (Job job : round) {
        doing = job.toString();
        reached = furthest(reached, job.run());
        done++;
      }
      if (force && target != null && targetFile != null) {
        doing = "forcing " + targetFile.name() + " up to " + target.offset();
        long started = time.nanoseconds();
        targetFile.force();
        observer.forced(time.nanoseconds() - started, covered);
        reached = furthest(reached, target);
      }
      doing = null;
      if (reached != null) {
        durable.advance(reached);
        onDurable.accept(reached);
      }
      Position now = durable.position();
      for (CompletableFuture<Position> r : requests) {
        r.complete(now);
      }
      return true;
    } catch (IOException | RuntimeException e) {
      requeue(round.subList(done, round.size()));
      boolean binlogForce =
          targetFile != null && targetFile.forceFailed()
              || done < round.size() && round.get(done).forceFailed();
      lock.lock();
      try {
        forceFailed = binlogForce;
      } finally {
        lock.unlock();
      }
      fail(doing == null ? "advancing the durable boundary" : doing, e, requests);
      return false;
    }
  }

  private boolean isBehind() {
    Position d = durable.position();
    return written != null && (d == null || written.isAfter(d));
  }

  private static Position furthest(Position a, Position b) {
    if (a == null) {
      return b;
    }
    return b == null || a.compareTo(b) >= 0 ? a : b;
  }

  /**
   * Puts jobs that did not run back at the head of the queue, in order, for {@link #stop()} to
   * abandon.
   */
  private void requeue(List<Job> notRun) {
    lock.lock();
    try {
      for (int i = notRun.size() - 1; i >= 0; i--) {
        jobs.addFirst(notRun.get(i));
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops the store first and completes the sync requests last, so that whoever sees a sync fail
   * finds the store stopped and the durable boundary failed.
   */
  private void fail(String what, Throwable e, List<CompletableFuture<Position>> requests) {
    onFailure.accept(what, e);
    List<CompletableFuture<Position>> pending;
    lock.lock();
    try {
      failure = e;
      pending = new ArrayList<>(syncRequests);
      syncRequests.clear();
    } finally {
      lock.unlock();
    }
    pending.addAll(requests);
    durable.fail(e);
    for (CompletableFuture<Position> r : pending) {
      r.completeExceptionally(e);
    }
  }
}
