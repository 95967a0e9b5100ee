package org.binlogrelay.server;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.packet.ErrPacket;

/**
 * The first packet a MySQL or MariaDB server sends on a new connection (its HandshakeV10), read
 * without logging in: it names the server's version, which tells MySQL from MariaDB ({@code
 * 5.5.5-10.11.6-MariaDB}). The connection is closed right after, before any authentication.
 * Stateless.
 */
final class PrimaryGreeting {
  /** A greeting is about 100 bytes; anything much larger is not a MySQL server. */
  private static final int MAX_GREETING_BYTES = 16 * 1024;

  private PrimaryGreeting() {}

  /**
   * Connects to {@code primary}, reads its greeting and returns the server version it announces.
   *
   * @param timeout bound on connecting and on reading the greeting
   * @throws IOException naming the primary: unreachable, refused (an ERR instead of a greeting,
   *     e.g. too many connections or a blocked host), or not a MySQL server
   */
  static String serverVersion(HostPort primary, Duration timeout) throws IOException {
    int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(primary.host(), primary.port()), millis);
      socket.setSoTimeout(millis);
      DataInputStream in = new DataInputStream(socket.getInputStream());
      byte[] header = new byte[4];
      in.readFully(header);
      int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
      if (length < 1 || length > MAX_GREETING_BYTES) {
        throw new IOException(
            "primary "
                + primary
                + " sent a first packet of "
                + length
                + " bytes, not a MySQL"
                + " greeting; is --primary the MySQL/MariaDB port?");
      }
      byte[] payload = new byte[length];
      in.readFully(payload);
      if (ErrPacket.isErr(payload)) {
        ErrPacket err = ErrPacket.decode(payload);
        throw new IOException(
            "primary "
                + primary
                + " refused the connection: error "
                + err.code()
                + ": "
                + err.message());
      }
      return HandshakeV10.decode(payload).serverVersion();
    } catch (ConnectException | UnknownHostException e) {
      throw new IOException("cannot connect to primary " + primary + ": " + e.getMessage(), e);
    } catch (SocketTimeoutException e) {
      throw new IOException("primary " + primary + " sent no greeting within " + millis + " ms", e);
    } catch (EOFException e) {
      throw new IOException(
          "primary " + primary + " closed the connection before its greeting was complete", e);
    } catch (ProtocolException e) {
      throw new IOException(
          "primary "
              + primary
              + " did not send a MySQL greeting ("
              + e.getMessage()
              + "); is --primary the MySQL/MariaDB port?",
          e);
    }
  }
}
