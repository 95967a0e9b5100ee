package org.binlogrelay.server.serving;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeResponse41;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.packet.ErrPacket;

/**
 * Test side: a minimal MySQL client over plain TCP with {@code mysql_native_password}, enough to set user
 * variables, run SHOW statements and read a dump stream packet by packet. Not thread-safe.
 */
final class TinyClient implements AutoCloseable {
  private static final int CAPABILITIES = CapabilityFlags.CLIENT_PROTOCOL_41 | CapabilityFlags.CLIENT_SECURE_CONNECTION
      | CapabilityFlags.CLIENT_PLUGIN_AUTH | CapabilityFlags.CLIENT_LONG_PASSWORD | CapabilityFlags.CLIENT_TRANSACTIONS;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private int sequence;

  TinyClient(int port, String user, String password) throws IOException {
    socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setSoTimeout(20_000);
    in = socket.getInputStream();
    out = socket.getOutputStream();
    HandshakeV10 greeting = HandshakeV10.decode(read().payload());
    send(new HandshakeResponse41(CAPABILITIES, 1 << 30, 255, user,
        NativePasswordHash.scramble(password, greeting.scramble()), null, NativePasswordHash.PLUGIN, Map.of())
        .encode());
    byte[] answer = read().payload();
    if (answer[0] != 0) {
      throw new IOException("login refused: " + ErrPacket.decode(answer));
    }
  }

  /** Runs a statement; returns its rows (empty for OK), throws on ERR. */
  List<List<String>> query(String sql) throws IOException {
    sequence = 0;
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    byte[] payload = new byte[text.length + 1];
    payload[0] = 0x03;
    System.arraycopy(text, 0, payload, 1, text.length);
    send(payload);
    byte[] first = read().payload();
    if ((first[0] & 0xff) == 0xff) {
      throw new IOException(sql + ": " + ErrPacket.decode(first));
    }
    List<List<String>> rows = new ArrayList<>();
    if (first[0] == 0) {
      return rows;
    }
    int columns = (int) new ByteReader(first).lenencInt("column count");
    for (int i = 0; i <= columns; i++) {
      read(); // definitions, then EOF
    }
    while (true) {
      byte[] row = read().payload();
      if ((row[0] & 0xff) == 0xfe && row.length < 9) {
        return rows;
      }
      ByteReader r = new ByteReader(row);
      List<String> values = new ArrayList<>();
      for (int i = 0; i < columns; i++) {
        if ((row[r.position()] & 0xff) == 0xfb) {
          r.skip(1, "NULL");
          values.add(null);
        } else {
          values.add(r.string((int) r.lenencInt("length"), "value"));
        }
      }
      rows.add(values);
    }
  }

  /** Sends a command packet (a dump request) with sequence id 0. */
  void command(byte[] payload) throws IOException {
    sequence = 0;
    send(payload);
  }

  /** The next logical packet, continuation frames joined. */
  Wire.Packet read() throws IOException {
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    int first = -1;
    int frames = 0;
    while (true) {
      byte[] header = readFully(4);
      int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
      if (first < 0) {
        first = header[3] & 0xff;
      }
      sequence = (header[3] + 1) & 0xff;
      payload.write(readFully(length));
      frames++;
      if (length < PacketSequence.MAX_FRAME) {
        return new Wire.Packet(first, frames, payload.toByteArray());
      }
    }
  }

  /** True once the server closed the connection. */
  boolean closedByServer() throws IOException {
    return in.read() < 0;
  }

  private void send(byte[] payload) throws IOException {
    out.write(new byte[] {(byte) payload.length, (byte) (payload.length >> 8), (byte) (payload.length >> 16),
        (byte) sequence});
    out.write(payload);
    out.flush();
    sequence = (sequence + 1) & 0xff;
  }

  private byte[] readFully(int n) throws IOException {
    byte[] b = new byte[n];
    int at = 0;
    while (at < n) {
      int r = in.read(b, at, n - at);
      if (r < 0) {
        throw new EOFException("server closed the connection");
      }
      at += r;
    }
    return b;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
