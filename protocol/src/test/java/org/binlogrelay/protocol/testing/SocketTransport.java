package org.binlogrelay.protocol.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSocket;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.packet.BlockingPacketReader;
import org.binlogrelay.protocol.packet.MysqlPacket;

/**
 * Test side: {@link WireClient}'s packets over a blocking socket, read through a {@link
 * BlockingPacketReader} (continuation frames joined, sequence ids enforced: the next after the last
 * packet sent or read). Not thread-safe.
 */
public final class SocketTransport implements WireClient.Transport {
  private final String host;
  private Socket socket;
  private BlockingPacketReader reader;
  private OutputStream out;
  private int nextSequence;

  private SocketTransport(String host, Socket socket) throws IOException {
    this.host = host;
    this.socket = socket;
    this.reader =
        new BlockingPacketReader(
            socket.getInputStream(), 64 * 1024, WireClient.MAX_PACKET, "the server", "");
    this.out = socket.getOutputStream();
  }

  /** Connects; {@code receiveBufferBytes} 0 for the default. */
  public static SocketTransport open(
      String host, int port, int receiveBufferBytes, Duration readTimeout) {
    Socket socket = new Socket();
    try {
      if (receiveBufferBytes > 0) {
        socket.setReceiveBufferSize(receiveBufferBytes);
      }
      socket.connect(new InetSocketAddress(host, port), 30_000);
      socket.setSoTimeout((int) readTimeout.toMillis());
      return new SocketTransport(host, socket);
    } catch (IOException e) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing what did not open
      }
      throw new UncheckedIOException("cannot connect to " + host + ":" + port, e);
    }
  }

  @Override
  public X509Certificate serverCertificate() {
    try {
      return (X509Certificate) ((SSLSocket) socket).getSession().getPeerCertificates()[0];
    } catch (SSLPeerUnverifiedException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void readTimeout(Duration timeout) {
    try {
      socket.setSoTimeout((int) timeout.toMillis());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void upgrade(SSLContext context) {
    try {
      SSLSocket tls =
          (SSLSocket) context.getSocketFactory().createSocket(socket, host, socket.getPort(), true);
      tls.setUseClientMode(true);
      tls.startHandshake();
      socket = tls;
      reader =
          new BlockingPacketReader(
              tls.getInputStream(), 64 * 1024, WireClient.MAX_PACKET, "the server", "");
      reader.expectSequence(nextSequence);
      out = tls.getOutputStream();
    } catch (IOException e) {
      throw new UncheckedIOException("TLS with " + host + " failed", e);
    }
  }

  /** Sends one packet; the server's answer carries the next sequence id. */
  @Override
  public void send(int sequenceId, byte[] payload) {
    try {
      out.write(
          new byte[] {
            (byte) payload.length,
            (byte) (payload.length >>> 8),
            (byte) (payload.length >>> 16),
            (byte) sequenceId
          });
      out.write(payload);
      out.flush();
      nextSequence = sequenceId + 1;
      reader.expectSequence(nextSequence);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The next packet, null if the server closed the connection (or reset it); a read that times out
   * throws {@link UncheckedIOException} with the {@link SocketTimeoutException}, a sequence id out
   * of step {@link IllegalStateException}.
   */
  @Override
  public WireClient.Packet receive() {
    try {
      byte[] payload = reader.read();
      return new WireClient.Packet(
          (reader.lastSequence() - MysqlPacket.frameCount(payload.length) + 1) & 0xff, payload);
    } catch (SocketTimeoutException e) {
      throw new UncheckedIOException(e);
    } catch (ProtocolException e) {
      throw new IllegalStateException(e.getMessage(), e);
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closed
    }
  }
}
