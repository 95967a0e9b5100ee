package org.binlogrelay.server.downstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.auth.RsaKeyPair;
import org.binlogrelay.protocol.handshake.AuthMoreData;
import org.binlogrelay.protocol.handshake.AuthSwitchRequest;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeResponse41;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.handshake.SslRequest;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.query.QueryResponseReader;

/**
 * Test side: a minimal MySQL client built on the protocol codecs, over a socket or an {@link EmbeddedChannel}. It
 * logs in with either password plugin (following auth switches, the caching_sha2 fast and full paths, TLS or RSA)
 * and sends commands. Not thread-safe.
 */
final class TestClient implements AutoCloseable {

  /** One packet received. */
  record Packet(int sequenceId, byte[] payload) {
    boolean isErr() {
      return ErrPacket.isErr(payload);
    }

    ErrPacket err() {
      return ErrPacket.decode(payload);
    }
  }

  /** Where packets go. */
  interface Transport extends AutoCloseable {
    void send(int sequenceId, byte[] payload);

    /** The next packet, or null if the server closed the connection. */
    Packet receive();

    @Override
    void close();
  }

  static final int CAPABILITIES = CapabilityFlags.CLIENT_PROTOCOL_41 | CapabilityFlags.CLIENT_SECURE_CONNECTION
      | CapabilityFlags.CLIENT_PLUGIN_AUTH | CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
      | CapabilityFlags.CLIENT_CONNECT_ATTRS | CapabilityFlags.CLIENT_DEPRECATE_EOF | CapabilityFlags.CLIENT_LONG_PASSWORD
      | CapabilityFlags.CLIENT_TRANSACTIONS | CapabilityFlags.CLIENT_CONNECT_WITH_DB;

  private Transport transport;
  private final HandshakeV10 greeting;
  private int capabilities = CAPABILITIES;
  private int seq;
  private boolean secure;
  /** What the last login did, e.g. [switch mysql_native_password, more 04, public key, ok]. */
  final java.util.List<String> steps = new java.util.ArrayList<>();

  private TestClient(Transport transport) {
    this.transport = transport;
    Packet first = transport.receive();
    if (first == null) {
      throw new IllegalStateException("server closed the connection before its greeting");
    }
    if (first.isErr()) {
      throw new ServerError(ErrPacket.decode(first.payload()));
    }
    this.greeting = HandshakeV10.decode(first.payload());
    this.seq = first.sequenceId() + 1;
  }

  static TestClient over(Transport transport) {
    return new TestClient(transport);
  }

  static TestClient connect(int port) {
    try {
      return new TestClient(new SocketTransport(new Socket("127.0.0.1", port)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  HandshakeV10 greeting() {
    return greeting;
  }

  TestClient withoutCapability(int flag) {
    capabilities &= ~flag;
    return this;
  }

  TestClient withCapability(int flag) {
    capabilities |= flag;
    return this;
  }

  /** The leaf certificate the server presented in {@link #startTls}. */
  java.security.cert.X509Certificate serverCertificate() {
    return ((SocketTransport) transport).serverCertificate();
  }

  /** Sends an SSLRequest and starts TLS (socket transport only). */
  TestClient startTls(SSLContext context) {
    transport.send(seq++, new SslRequest(capabilities, 1 << 24, 255).encode());
    ((SocketTransport) transport).upgrade(context);
    capabilities |= CapabilityFlags.CLIENT_SSL;
    secure = true;
    return this;
  }

  /**
   * Logs in with {@code plugin}'s first response, then follows the server. Returns the final OK packet; throws
   * {@link ServerError} with the server's ERR.
   */
  Packet login(String user, String password, String plugin, String database) {
    byte[] first = respond(plugin, password, greeting.scramble());
    transport.send(seq++, new HandshakeResponse41(capabilities, 1 << 24, 255, user, first, database, plugin,
        Map.of("_client_name", "binlog-relay-test")).encode());
    byte[] scramble = greeting.scramble();
    String current = plugin;
    String publicKey = null;
    while (true) {
      Packet p = receive();
      byte[] b = p.payload();
      if (OkPacket.isOk(b)) {
        steps.add("ok");
        return p;
      }
      if (p.isErr()) {
        steps.add("err " + p.err().code());
        throw new ServerError(p.err());
      }
      if (AuthSwitchRequest.isAuthSwitch(b)) {
        AuthSwitchRequest s = AuthSwitchRequest.decode(b);
        steps.add("switch " + s.pluginName());
        current = s.pluginName();
        scramble = Arrays.copyOf(s.pluginData(), 20);
        transport.send(seq++, respond(current, password, scramble));
        continue;
      }
      byte[] data = AuthMoreData.decode(b).data();
      if (data.length == 1 && data[0] == 3) {
        steps.add("fast ok");
        continue;
      }
      if (data.length == 1 && data[0] == 4) {
        steps.add("full");
        if (secure) {
          transport.send(seq++, nul(password));
        } else {
          transport.send(seq++, new byte[] {2});
        }
        continue;
      }
      publicKey = new String(data, StandardCharsets.US_ASCII);
      steps.add("public key");
      byte[] plain = nul(password);
      for (int i = 0; i < plain.length; i++) {
        plain[i] ^= scramble[i % scramble.length];
      }
      try {
        transport.send(seq++, RsaKeyPair.encrypt(publicKey, plain, RsaKeyPair.Padding.OAEP_SHA1));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static byte[] respond(String plugin, String password, byte[] scramble) {
    if (password.isEmpty()) {
      return new byte[0];
    }
    return plugin.equals(NativePasswordHash.PLUGIN) ? NativePasswordHash.scramble(password, scramble)
        : CachingSha2Hash.scramble(password, scramble);
  }

  private static byte[] nul(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return Arrays.copyOf(b, b.length + 1);
  }

  /** Sends a command packet (sequence 0) without waiting for an answer. */
  void send(byte[] payload) {
    seq = 0;
    transport.send(seq++, payload);
  }

  /** Sends a command packet (sequence 0) and returns the first packet of the answer. */
  Packet command(byte[] payload) {
    seq = 0;
    transport.send(seq++, payload);
    return receive();
  }

  QueryResponse query(String sql) {
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    byte[] payload = new byte[text.length + 1];
    payload[0] = (byte) Command.COM_QUERY.code();
    System.arraycopy(text, 0, payload, 1, text.length);
    QueryResponseReader reader = new QueryResponseReader(true, 100, 10_000);
    Packet p = command(payload);
    while (!reader.accept(p.payload())) {
      p = receive();
    }
    return reader.response();
  }

  /** Reads the whole answer to a query sent earlier with {@link #send} (its packets count from 1 again). */
  QueryResponse answer() {
    seq = 1;
    QueryResponseReader reader = new QueryResponseReader(true, 100, 10_000);
    Packet p = receive();
    while (!reader.accept(p.payload())) {
      p = receive();
    }
    return reader.response();
  }

  Packet receive() {
    Packet p = transport.receive();
    if (p == null) {
      throw new IllegalStateException("server closed the connection");
    }
    if (p.sequenceId() != (seq & 0xff)) {
      throw new IllegalStateException("packet with sequence id " + p.sequenceId() + ", expected " + (seq & 0xff));
    }
    seq++;
    return p;
  }

  /** Null once the server has closed the connection. */
  Packet receiveOrNull() {
    return transport.receive();
  }

  @Override
  public void close() {
    transport.close();
  }

  /** The server answered with ERR. */
  static final class ServerError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient ErrPacket err;

    ServerError(ErrPacket err) {
      super(err.code() + " (" + err.sqlState() + "): " + err.message());
      this.err = err;
    }
  }

  /** Packets over a blocking socket. */
  static final class SocketTransport implements Transport {
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    SocketTransport(Socket socket) throws IOException {
      this.socket = socket;
      socket.setSoTimeout(20_000);
      this.in = socket.getInputStream();
      this.out = socket.getOutputStream();
    }

    java.security.cert.X509Certificate serverCertificate() {
      try {
        return (java.security.cert.X509Certificate) ((SSLSocket) socket).getSession().getPeerCertificates()[0];
      } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
        throw new IllegalStateException(e);
      }
    }

    void upgrade(SSLContext context) {
      try {
        SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket, "127.0.0.1", socket.getPort(), true);
        tls.setUseClientMode(true);
        tls.startHandshake();
        socket = tls;
        in = tls.getInputStream();
        out = tls.getOutputStream();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void send(int sequenceId, byte[] payload) {
      try {
        out.write(new byte[] {(byte) payload.length, (byte) (payload.length >>> 8), (byte) (payload.length >>> 16),
            (byte) sequenceId});
        out.write(payload);
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public Packet receive() {
      try {
        byte[] header = readFully(4);
        if (header == null) {
          return null;
        }
        int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
        byte[] payload = readFully(length);
        if (payload == null) {
          throw new EOFException("connection closed inside a packet");
        }
        return new Packet(header[3] & 0xff, payload);
      } catch (IOException e) {
        return null;
      }
    }

    private byte[] readFully(int n) throws IOException {
      byte[] b = new byte[n];
      int at = 0;
      while (at < n) {
        int r = in.read(b, at, n - at);
        if (r < 0) {
          return null;
        }
        at += r;
      }
      return b;
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

  /** Packets through an {@link EmbeddedChannel}, written in one byte at a time when asked. */
  static final class EmbeddedTransport implements Transport {
    private final EmbeddedChannel channel;
    private final boolean byteByByte;
    private final Deque<Packet> received = new ArrayDeque<>();
    private ByteBuf pending = Unpooled.buffer();

    EmbeddedTransport(EmbeddedChannel channel, boolean byteByByte) {
      this.channel = channel;
      this.byteByByte = byteByByte;
    }

    @Override
    public void send(int sequenceId, byte[] payload) {
      byte[] frame = new byte[payload.length + 4];
      frame[0] = (byte) payload.length;
      frame[1] = (byte) (payload.length >>> 8);
      frame[2] = (byte) (payload.length >>> 16);
      frame[3] = (byte) sequenceId;
      System.arraycopy(payload, 0, frame, 4, payload.length);
      if (byteByByte) {
        for (byte b : frame) {
          channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
      } else {
        channel.writeInbound(Unpooled.wrappedBuffer(frame));
      }
    }

    @Override
    public Packet receive() {
      channel.runPendingTasks();
      ByteBuf out;
      while ((out = channel.readOutbound()) != null) {
        pending.writeBytes(out);
        out.release();
      }
      while (pending.readableBytes() >= 4) {
        int length = pending.getUnsignedMediumLE(pending.readerIndex());
        if (pending.readableBytes() < 4 + length) {
          break;
        }
        pending.skipBytes(3);
        int s = pending.readUnsignedByte();
        byte[] payload = new byte[length];
        pending.readBytes(payload);
        received.add(new Packet(s, payload));
      }
      pending.discardReadBytes();
      return received.poll();
    }

    @Override
    public void close() {
      pending.release();
      pending = Unpooled.EMPTY_BUFFER;
    }
  }
}
