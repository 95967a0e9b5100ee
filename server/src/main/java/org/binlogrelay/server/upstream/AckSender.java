package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.binlogrelay.storage.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acknowledges semi-synchronous transactions to the primary, each only once the store has made it
 * durable.
 *
 * <p>The reading thread calls {@link #ackWhenDurable} with the primary's position of a flagged
 * event and the store's future for that event's end ({@code BinlogStore.whenDurable}); it never
 * waits. When the future completes (on the store's syncer thread), the position becomes the pending
 * ack; this sender's own thread writes it to the connection. Acks are cumulative for the primary
 * (it releases every commit up to the acknowledged position), so when several become durable
 * together only the newest is sent. A future that fails (the store failed or closed) is never
 * acknowledged: the failure is kept and {@link #failure()} ends the session. A failed write is kept
 * the same way and ends this sender's thread; nothing is retried here, the next connection starts
 * afresh.
 *
 * <p>Thread-safety: {@link #ackWhenDurable}, {@link #failure()} and {@link #close()} may be called
 * from any thread; the only writer to the connection during the dump is this sender's thread.
 */
final class AckSender implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AckSender.class);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  /** Where the acks go: one packet per call, sequence id 0. */
  @FunctionalInterface
  interface Channel {
    void send(byte[] payload) throws IOException;
  }

  private final Channel channel;
  private final String source;
  private final IngestCounters counters;
  private final Object lock = new Object();
  private final Thread thread;
  private Position pending;

  /** The newest position handed to the channel (sent or being sent). */
  private Position taken;

  private Throwable failure;
  private boolean closed;

  /**
   * @param source the primary, for messages and the thread's name
   */
  AckSender(Channel channel, String source, IngestCounters counters) {
    this.channel = channel;
    this.source = source;
    this.counters = counters;
    this.thread = new Thread(this::run, "semi-sync-ack-" + source);
    this.thread.setDaemon(true);
  }

  /** Starts the sending thread. */
  AckSender start() {
    thread.start();
    return this;
  }

  /**
   * Acknowledges {@code primaryPosition} once {@code durable} completes; never if it fails.
   *
   * @param primaryPosition the flagged event's end in the primary's binlog (its file and log_pos)
   * @param durable completes once the event's end in the store is durable
   */
  void ackWhenDurable(Position primaryPosition, CompletableFuture<?> durable) {
    counters.ackRequested();
    durable.whenComplete(
        (p, error) -> {
          if (error != null) {
            fail(
                new IOException(
                    "semi-sync ack of "
                        + primaryPosition
                        + " to "
                        + source
                        + " not sent: the store did not"
                        + " make the transaction durable ("
                        + error.getMessage()
                        + ")",
                    error));
          } else {
            offer(primaryPosition);
          }
        });
  }

  /** The error that stops acknowledgements (a failed write or durability wait), or {@code null}. */
  Throwable failure() {
    synchronized (lock) {
      return failure;
    }
  }

  private void offer(Position position) {
    synchronized (lock) {
      if (closed || failure != null) {
        return;
      }
      if ((pending == null || position.isAfter(pending))
          && (taken == null || position.isAfter(taken))) {
        pending = position;
        lock.notifyAll();
      }
    }
  }

  private void fail(Throwable error) {
    synchronized (lock) {
      if (failure == null && !closed) {
        failure = error;
        LOG.warn("upstream {}: {}", source, error.getMessage());
      }
      lock.notifyAll();
    }
  }

  private void run() {
    while (true) {
      Position next;
      synchronized (lock) {
        while (pending == null && !closed && failure == null) {
          try {
            lock.wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
        if (closed || failure != null) {
          return;
        }
        next = pending;
        pending = null;
        taken = next;
      }
      try {
        channel.send(SemiSyncPackets.ack(next));
      } catch (IOException | RuntimeException e) {
        fail(
            new IOException(
                "sending the semi-sync ack of " + next + " to " + source + " failed: " + e, e));
        return;
      }
      counters.ackSent(next);
    }
  }

  /**
   * Stops the sending thread; pending acks are dropped (the primary times out or the next
   * connection acks).
   */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
    if (thread.isAlive() && Thread.currentThread() != thread) {
      try {
        thread.join(CLOSE_WAIT.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
