package org.binlogrelay.e2e.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.binlogrelay.e2e.servers.HostAndPort;

/**
 * Test side: a loopback TCP proxy in front of a server that can freeze the connections it carries (stop
 * forwarding in both directions while keeping them open), the way a dead network path looks to both ends.
 * New connections after a freeze are forwarded normally.
 */
final class FreezableProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final HostAndPort target;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    FreezableProxy(HostAndPort target) throws IOException {
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
            l.close();
        }
    }

    /** One proxied connection: two pump threads. */
    private static final class Link {
        final Socket client;
        final Socket server;
        volatile boolean frozen;

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
                            Thread.sleep(50);
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

        void close() {
            try {
                client.close();
            } catch (IOException e) {
                // test proxy: the other side's close reports what matters
            }
            try {
                server.close();
            } catch (IOException e) {
                // as above
            }
        }
    }
}
