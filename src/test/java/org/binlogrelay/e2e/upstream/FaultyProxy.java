package org.binlogrelay.e2e.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.binlogrelay.e2e.servers.HostAndPort;

/**
 * Test side: a loopback TCP proxy in front of a server that breaks the connections it carries the ways networks
 * do, each applied to the connections open at the call (new connections are forwarded normally):
 *
 * <ul>
 *   <li>{@link #freezeOpenConnections()}: stop forwarding in both directions, for good, keeping both sockets open
 *       (a dead path);</li>
 *   <li>{@link #stall(Duration)}: the same for a while, then forward again (a congested path);</li>
 *   <li>{@link #drop()}: reset both sides at once (a crashed middlebox);</li>
 *   <li>{@link #halfOpen()}: close the server side but keep the client side open and silent, so the client gets
 *       no FIN or RST (the server's host vanished).</li>
 * </ul>
 */
final class FaultyProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final HostAndPort target;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    FaultyProxy(HostAndPort target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    HostAndPort address() {
        return new HostAndPort("127.0.0.1", listener.getLocalPort());
    }

    /** Stops forwarding on every connection open now; they stay open. */
    void freezeOpenConnections() {
        for (Link l : links) {
            l.frozen = true;
        }
    }

    /** Stops forwarding on every connection open now for {@code duration}, then forwards again. */
    void stall(Duration duration) throws InterruptedException {
        List<Link> now = List.copyOf(links);
        for (Link l : now) {
            l.frozen = true;
        }
        Thread.sleep(duration.toMillis());
        for (Link l : now) {
            l.frozen = false;
        }
    }

    /** Resets both sides of every connection open now. */
    void drop() {
        for (Link l : links) {
            l.reset();
        }
    }

    /** Closes the server side of every connection open now; the client side stays open and hears nothing. */
    void halfOpen() {
        for (Link l : links) {
            l.frozen = true;
            l.keepClient = true;
            l.closeQuietly(l.server);
        }
    }

    int connectionsAccepted() {
        return links.size();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(target.host(), target.port());
                Link link = new Link(client, server);
                links.add(link);
                link.start();
            } catch (SocketException e) {
                return; // closed
            } catch (IOException e) {
                throw new IllegalStateException("proxy to " + target + " failed to accept", e);
            }
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Link l : links) {
            l.keepClient = false;
            l.close();
        }
    }

    /** One proxied connection: two pump threads. */
    private static final class Link {
        final Socket client;
        final Socket server;
        volatile boolean frozen;
        volatile boolean keepClient;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void start() throws IOException {
            pump(client.getInputStream(), server.getOutputStream(), "up");
            pump(server.getInputStream(), client.getOutputStream(), "down");
        }

        private void pump(InputStream in, OutputStream out, String direction) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[16384];
                try {
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        while (frozen && !client.isClosed()) {
                            Thread.sleep(20);
                        }
                        out.write(buffer, 0, n);
                    }
                } catch (IOException | InterruptedException e) {
                    // the connection ended; close both sides below
                } finally {
                    close();
                }
            }, "proxy-" + direction + "-" + client.getPort());
            t.setDaemon(true);
            t.start();
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

        void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // test proxy: the other side's failure reports what matters
            }
        }
    }
}
