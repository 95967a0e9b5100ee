package org.binlogrelay.bench;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.binlogrelay.bench.client.PacketFrames;
import org.binlogrelay.bench.stream.DumpStreamReader;

/**
 * Reads the dump streams of many {@link ReplicaClient#startSelectable selectable} clients on a few
 * threads, each with its own selector: a thread wakes once for all its clients that have bytes
 * waiting, where a thread per client wakes each one (a context switch per client and per write of
 * the source, which on a small machine cost the clients more CPU than their reads, and slowed the
 * source that had to wake them).
 *
 * <p>Each client is read once per round of its thread's selector (at most one buffer's worth), so a
 * client far behind does not hold up the others on its thread. The clock is read once per read: the
 * packets of one read arrived together. A client with nothing to read for the read timeout fails
 * with a {@link SocketTimeoutException}, as a blocking client's read would.
 *
 * <p>Thread-safe: {@link #add} and {@link #close} from any thread; the {@link Listener} is called
 * on the client's reading thread.
 */
final class StreamReaders implements Closeable {
  /** What happens to one client's stream. */
  interface Listener {
    /** An event arrived (not a heartbeat): the stream's progress includes it. */
    void event(DumpStreamReader stream, long arrivalNanos);

    /**
     * The client's stream ended with {@code cause} (also when the client was closed on purpose);
     * called once, the client is no longer read.
     */
    void ended(Throwable cause);
  }

  private static final long SELECT_MILLIS = 500;

  private final Loop[] loops;
  private final long readTimeoutNanos;
  private int next;

  /**
   * Starts {@code threads} reading threads.
   *
   * @param readTimeout how long a client may go without a packet; zero: forever
   */
  StreamReaders(int threads, Duration readTimeout) throws IOException {
    if (threads < 1) {
      throw new IllegalArgumentException("at least one reading thread, got " + threads);
    }
    this.readTimeoutNanos = readTimeout.toNanos();
    this.loops = new Loop[threads];
    try {
      for (int i = 0; i < threads; i++) {
        loops[i] = new Loop(i);
      }
    } catch (IOException e) {
      close();
      throw e;
    }
    for (Loop loop : loops) {
      loop.thread.start();
    }
  }

  /** Reads {@code client}'s stream from now on, on one of the threads (in turn). */
  void add(ReplicaClient client, Listener listener) {
    Loop loop;
    synchronized (this) {
      loop = loops[next];
      next = (next + 1) % loops.length;
    }
    loop.pending.add(new Reading(client, listener));
    loop.selector.wakeup();
  }

  /**
   * Stops the threads (waiting up to 10 s for each); the clients' channels are left to their
   * owners, and the listeners of clients still read are not called.
   */
  @Override
  public void close() {
    for (Loop loop : loops) {
      if (loop != null) {
        loop.stopping = true;
        loop.selector.wakeup();
      }
    }
    for (Loop loop : loops) {
      if (loop == null) {
        continue;
      }
      try {
        loop.thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      try {
        loop.selector.close();
      } catch (IOException e) {
        // nothing left to read from it
      }
    }
  }

  /** One client on one thread. */
  private static final class Reading {
    final Listener listener;
    final SocketChannel channel;
    final PacketFrames frames;
    final DumpStreamReader stream;
    long lastPacketNanos = System.nanoTime();
    boolean ended;

    Reading(ReplicaClient client, Listener listener) {
      this.listener = listener;
      this.channel = client.channel();
      this.frames = client.frames();
      this.stream = client.stream();
      if (channel == null) {
        throw new IllegalArgumentException("the client was not started selectable");
      }
    }

    void end(Throwable cause) {
      if (!ended) {
        ended = true;
        listener.ended(cause);
      }
    }
  }

  private final class Loop implements Runnable {
    final Selector selector;
    final Thread thread;
    final ConcurrentLinkedQueue<Reading> pending = new ConcurrentLinkedQueue<>();
    final List<Reading> readings = new ArrayList<>();
    volatile boolean stopping;

    Loop(int index) throws IOException {
      this.selector = Selector.open();
      this.thread = new Thread(this, "stream-reader-" + index);
      thread.setDaemon(true);
    }

    @Override
    public void run() {
      long lastCheck = System.nanoTime();
      try {
        while (!stopping) {
          selector.select(SELECT_MILLIS);
          Reading added;
          while ((added = pending.poll()) != null) {
            register(added);
          }
          Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
          while (ready.hasNext()) {
            SelectionKey key = ready.next();
            ready.remove();
            read(key, (Reading) key.attachment());
          }
          long now = System.nanoTime();
          if (readTimeoutNanos > 0 && now - lastCheck >= SELECT_MILLIS * 1_000_000) {
            lastCheck = now;
            timeOut(now);
          }
        }
      } catch (IOException | ClosedSelectorException e) {
        for (Reading r : readings) {
          r.end(e);
        }
      }
    }

    private void register(Reading r) {
      try {
        r.channel.register(selector, SelectionKey.OP_READ, r);
        r.lastPacketNanos = System.nanoTime();
        readings.add(r);
        // Bytes read ahead during the login are already in the frames: hand them over now.
        deliver(r, r.lastPacketNanos);
      } catch (IOException | RuntimeException e) {
        r.end(e);
      }
    }

    private void read(SelectionKey key, Reading r) {
      try {
        int n = r.frames.readFrom(r.channel);
        if (n < 0) {
          throw new EOFException(
              "the source closed the connection at " + r.stream.file() + ":" + r.stream.offset());
        }
        if (n > 0) {
          long now = System.nanoTime();
          r.lastPacketNanos = now;
          deliver(r, now);
        }
      } catch (IOException | RuntimeException e) {
        key.cancel();
        readings.remove(r);
        r.end(e);
      }
    }

    private void deliver(Reading r, long arrivalNanos) throws IOException {
      while (r.frames.next()) {
        DumpStreamReader.Kind kind =
            r.stream.accept(r.frames.array(), r.frames.offset(), r.frames.length(), arrivalNanos);
        if (kind == DumpStreamReader.Kind.EVENT) {
          r.listener.event(r.stream, arrivalNanos);
        }
      }
    }

    private void timeOut(long now) {
      Iterator<Reading> it = readings.iterator();
      while (it.hasNext()) {
        Reading r = it.next();
        if (now - r.lastPacketNanos > readTimeoutNanos) {
          it.remove();
          SelectionKey key = r.channel.keyFor(selector);
          if (key != null) {
            key.cancel();
          }
          r.end(
              new SocketTimeoutException(
                  "no packet from the source for " + readTimeoutNanos / 1_000_000 + " ms"));
        }
      }
    }
  }
}
