package org.binlogrelay.e2e.downstream;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.protocol.handshake.SslRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small logging proxy for the MySQL protocol, used to capture transcripts: clients connect to
 * {@link #port()} on 127.0.0.1, the proxy connects to the real server and forwards every packet
 * unchanged, feeding both directions to a {@link ConnectionTranscriber} per connection.
 *
 * <p>TLS is terminated so the conversation can be read: when a client sends an SSLRequest, the
 * proxy forwards it, starts TLS towards the server (trusting any certificate) and then accepts TLS
 * from the client with the {@link TestCertificates} certificate. MySQL 9.7 replicas insist on TLS
 * by default, so this is needed.
 *
 * <p>Blocking sockets; the greeting and handshake response are handled on the accepting thread,
 * then two daemon threads per connection pump packets. For tests only. Thread-safe.
 */
final class TranscriptProxy implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TranscriptProxy.class);
  private static final int MAX_FRAME = 0xffffff;

  private final HostAndPort upstream;
  private final ServerSocket listener;
  private final SSLContext towardsClients = TestCertificates.shared().serverContext();
  private final SSLContext towardsServer = TestCertificates.trustAllClientContext();
  private final List<ConnectionTranscriber> connections = new CopyOnWriteArrayList<>();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  TranscriptProxy(HostAndPort upstream) throws IOException {
    this.upstream = upstream;
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    Thread acceptor = new Thread(this::acceptLoop, "transcript-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  /** The connections seen so far, in the order they were accepted. */
  List<ConnectionTranscriber> connections() {
    return new ArrayList<>(connections);
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        sockets.add(client);
        start("transcript-proxy-setup", () -> setUp(client));
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("transcript proxy: accept failed: {}", e.toString());
        }
      }
    }
  }

  private void setUp(Socket client) {
    ConnectionTranscriber transcriber = new ConnectionTranscriber();
    connections.add(transcriber);
    Socket server = null;
    try {
      server = new Socket(upstream.host(), upstream.port());
      sockets.add(server);
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
      InputStream fromServer = server.getInputStream();
      OutputStream toServer = server.getOutputStream();
      InputStream fromClient = client.getInputStream();
      OutputStream toClient = client.getOutputStream();

      byte[][] greeting = readPacket(fromServer);
      writePacket(toClient, greeting[0], transcriber.fromServer(greeting[1]));
      byte[][] first = readPacket(fromClient);
      if (SslRequest.matches(first[1])) {
        transcriber.fromClient(first[1]);
        writePacket(toServer, first[0], first[1]);
        SSLSocket serverTls =
            (SSLSocket)
                towardsServer
                    .getSocketFactory()
                    .createSocket(server, upstream.host(), upstream.port(), true);
        serverTls.setUseClientMode(true);
        serverTls.startHandshake();
        SSLSocket clientTls =
            (SSLSocket) towardsClients.getSocketFactory().createSocket(client, null, true);
        clientTls.setUseClientMode(false);
        clientTls.startHandshake();
        sockets.add(serverTls);
        sockets.add(clientTls);
        fromServer = serverTls.getInputStream();
        toServer = serverTls.getOutputStream();
        fromClient = clientTls.getInputStream();
        toClient = clientTls.getOutputStream();
        first = readPacket(fromClient);
      }
      transcriber.fromClient(first[1]);
      writePacket(toServer, first[0], first[1]);

      Socket s = server;
      InputStream sIn = fromServer;
      OutputStream sOut = toServer;
      InputStream cIn = fromClient;
      OutputStream cOut = toClient;
      start("transcript-proxy-s2c", () -> pump(sIn, cOut, transcriber, false, client, s));
      start("transcript-proxy-c2s", () -> pump(cIn, sOut, transcriber, true, client, s));
    } catch (IOException | RuntimeException e) {
      if (!closed) {
        LOG.info("transcript proxy: connection set-up ended: {}", e.toString());
      }
      closeQuietly(client);
      if (server != null) {
        closeQuietly(server);
      }
    }
  }

  private static void start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
  }

  private void pump(
      InputStream in,
      OutputStream out,
      ConnectionTranscriber transcriber,
      boolean fromClient,
      Socket client,
      Socket server) {
    try {
      while (true) {
        byte[][] packet = readPacket(in);
        byte[] payload = packet[1];
        if (payload.length < MAX_FRAME) {
          if (fromClient) {
            transcriber.fromClient(payload);
          } else {
            payload = transcriber.fromServer(payload);
          }
        }
        writePacket(out, packet[0], payload);
      }
    } catch (EOFException e) {
      // one side closed
    } catch (IOException | RuntimeException e) {
      if (!closed) {
        LOG.info("transcript proxy: connection ended: {}", e.toString());
      }
    } finally {
      closeQuietly(client);
      closeQuietly(server);
    }
  }

  /** One frame: {header, payload}. */
  private static byte[][] readPacket(InputStream in) throws IOException {
    byte[] header = new byte[4];
    readFully(in, header);
    int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
    byte[] payload = new byte[length];
    readFully(in, payload);
    return new byte[][] {header, payload};
  }

  private static void writePacket(OutputStream out, byte[] header, byte[] payload)
      throws IOException {
    out.write(header);
    out.write(payload);
    out.flush();
  }

  private static void readFully(InputStream in, byte[] buffer) throws IOException {
    int at = 0;
    while (at < buffer.length) {
      int n = in.read(buffer, at, buffer.length - at);
      if (n < 0) {
        throw new EOFException();
      }
      at += n;
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // ignore
    }
    sockets.forEach(TranscriptProxy::closeQuietly);
  }
}
