package org.binlogrelay.e2e.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.binlogrelay.e2e.servers.HostAndPort;

/**
 * Test side: a loopback TCP proxy in front of a server that breaks the connections it carries the
 * ways networks do, each applied to the connections open at the call (new connections are forwarded
 * normally):
 *
 * <ul>
 *   <li>{@link #freezeOpenConnections()}: stop forwarding in both directions, for good, keeping
 *       both sockets open (a dead path);
 *   <li>{@link #stall(Duration)}: the same for a while, then forward again (a congested path);
 *   <li>{@link #drop()}: reset both sides at once (a crashed middlebox);
 *   <li>{@link #halfOpen()}: close the server side but keep the client side open and silent, so the
 *       client gets no FIN or RST (the server's host vanished).
 * </ul>
 *
 * and one that applies to every connection, open or new, until it is lifted:
 *
 * <ul>
 *   <li>{@link #throttle(int)}: forward at most so many bytes per second in each direction (a slow
 *       path).
 * </ul>
 *
 * A connection accepted while the target is down is closed at once (the client sees the connection
 * refused by the far end), and the proxy goes on accepting. Thread-safe.
 */
public final class FaultyProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final HostAndPort target;
  private final List<Link> links = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  /** Bytes per second per direction and connection; 0 forwards at full speed. */
  private volatile int bytesPerSecond;

  /** SO_RCVBUF of the proxy's connections to the target; 0 leaves it to the operating system. */
  private final int targetReceiveBufferBytes;

  public FaultyProxy(HostAndPort target) throws IOException {
    this(target, 0);
  }

  /**
   * A proxy whose connections to the target have a fixed receive buffer of {@code
   * targetReceiveBufferBytes}, so that a throttled path holds little in flight: the target sees a
   * small window, as over a slow link.
   */
  public FaultyProxy(HostAndPort target, int targetReceiveBufferBytes) throws IOException {
    this.target = target;
    this.targetReceiveBufferBytes = targetReceiveBufferBytes;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "proxy-accept-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public HostAndPort address() {
    return new HostAndPort("127.0.0.1", listener.getLocalPort());
  }

  /** Stops forwarding on every connection open now; they stay open. */
  public void freezeOpenConnections() {
    for (Link l : links) {
      l.freeze(true);
    }
  }

  /** Stops forwarding on every connection open now for {@code duration}, then forwards again. */
  public void stall(Duration duration) throws InterruptedException {
    List<Link> now = List.copyOf(links);
    for (Link l : now) {
      l.freeze(true);
    }
    Thread.sleep(duration.toMillis()); // the fault's duration, not a wait for anything
    for (Link l : now) {
      l.freeze(false);
    }
  }

  /** Resets both sides of every connection open now. */
  public void drop() {
    for (Link l : links) {
      l.reset();
    }
  }

  /**
   * Closes the server side of every connection open now; the client side stays open and hears
   * nothing.
   */
  public void halfOpen() {
    for (Link l : links) {
      l.freeze(true);
      l.keepClient = true;
      Link.closeQuietly(l.server);
    }
  }

  /**
   * From now on, forwards at most {@code rate} bytes per second in each direction of every
   * connection, open or new, in slices every 50 ms; 0 lifts the limit.
   */
  public void throttle(int rate) {
    if (rate < 0) {
      throw new IllegalArgumentException(
          "Invalid proxy rate " + rate + " bytes/s: must be 0 (no limit) or more");
    }
    bytesPerSecond = rate;
  }

  public int connectionsAccepted() {
    return links.size();
  }

  private void accept() {
    while (!listener.isClosed()) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (listener.isClosed()) {
          return;
        }
        throw new IllegalStateException("proxy to " + target + " failed to accept", e);
      }
      Socket server;
      try {
        server = new Socket();
        if (targetReceiveBufferBytes > 0) {
          server.setReceiveBufferSize(targetReceiveBufferBytes);
        }
        server.connect(new InetSocketAddress(target.host(), target.port()));
      } catch (IOException e) {
        // the target is down (restarting, killed): refuse this client as the target would, keep
        // accepting
        Link.closeQuietly(client);
        continue;
      }
      Link link = new Link(client, server, () -> bytesPerSecond);
      links.add(link);
      try {
        link.start();
      } catch (IOException e) {
        link.close();
      }
    }
  }

  /**
   * Stops accepting, closes every connection, and waits (at most 10 s) until the acceptor and every
   * pump thread have ended, so that nothing is forwarded after this returns: neither a connection
   * the acceptor took just before the listener closed (it would become a link after the others were
   * closed) nor bytes a pump read before its sockets closed.
   */
  @Override
  public void close() throws IOException {
    listener.close();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    try {
      // A connection accepted just before the listener closed becomes a link after this; wait
      // for the acceptor to end so that the loop below closes that link too.
      acceptor.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      for (Link l : links) {
        l.keepClient = false;
        l.close();
      }
      for (Link l : links) {
        l.awaitEnded(deadline);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while closing the proxy to " + target, e);
    }
  }

  /** One proxied connection: two pump threads. */
  private static final class Link {
    final Socket client;
    final Socket server;
    final IntSupplier rate;
    volatile boolean frozen;
    volatile boolean keepClient;
    final List<Thread> pumps = new CopyOnWriteArrayList<>();

    Link(Socket client, Socket server, IntSupplier rate) {
      this.client = client;
      this.server = server;
      this.rate = rate;
    }

    void start() throws IOException {
      pumps.add(pump(client.getInputStream(), server.getOutputStream(), "up"));
      pumps.add(pump(server.getInputStream(), client.getOutputStream(), "down"));
    }

    /** Waits until both pump threads have ended, or until {@code deadline} (System.nanoTime). */
    void awaitEnded(long deadline) throws InterruptedException, IOException {
      for (Thread t : pumps) {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        if (t.isAlive()) {
          throw new IOException(t.getName() + " still forwards 10 s after the proxy was closed");
        }
      }
    }

    private Thread pump(InputStream in, OutputStream out, String direction) {
      Thread t =
          new Thread(
              () -> {
                byte[] buffer = new byte[16384];
                try {
                  int n;
                  while ((n = in.read(buffer)) >= 0) {
                    awaitThawed();
                    forward(buffer, n, out);
                  }
                } catch (IOException | InterruptedException e) {
                  // the connection ended; close both sides below
                } finally {
                  close();
                }
              },
              "proxy-" + direction + "-" + client.getPort());
      t.setDaemon(true);
      t.start();
      return t;
    }

    /**
     * Writes {@code n} bytes at full speed, or while throttled in slices of at most 50 ms of the
     * rate, each followed by the time it takes at the rate.
     */
    private void forward(byte[] buffer, int n, OutputStream out)
        throws IOException, InterruptedException {
      int offset = 0;
      while (offset < n) {
        int limit = rate.getAsInt();
        int slice = limit > 0 ? Math.min(n - offset, Math.max(1, limit / 20)) : n - offset;
        out.write(buffer, offset, slice);
        offset += slice;
        if (limit > 0) {
          long nanos = slice * 1_000_000_000L / limit;
          Thread.sleep(
              nanos / 1_000_000, (int) (nanos % 1_000_000)); // the throttle's pace (the fault)
        }
      }
    }

    synchronized void freeze(boolean value) {
      frozen = value;
      notifyAll();
    }

    private synchronized void awaitThawed() throws InterruptedException {
      while (frozen && !client.isClosed()) {
        wait(100); // woken by freeze(false); the bound only notices a socket closed meanwhile
      }
    }

    void reset() {
      try {
        client.setSoLinger(true, 0);
        server.setSoLinger(true, 0);
      } catch (SocketException e) {
        // already closed: nothing to reset
      }
      close();
    }

    void close() {
      if (!keepClient) {
        closeQuietly(client);
      }
      closeQuietly(server);
    }

    static void closeQuietly(Socket s) {
      try {
        s.close();
      } catch (IOException e) {
        // test proxy: the other side's failure reports what matters
      }
    }
  }
}
