package org.binlogrelay.bench.client;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeResponse41;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.packet.BlockingPacketReader;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.MysqlPacket;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.query.QueryResponseReader;

/**
 * One client connection to a source (the relay, MySQL or MariaDB) over a plain blocking socket:
 * handshake, password login ({@link PasswordLogin}), text queries, and commands whose answer is
 * read packet by packet from {@link #packets()} (a dump).
 *
 * <p>Why blocking sockets and not Netty: a benchmark client has one stream per connection and
 * nothing else to do while it waits, so a thread blocked in {@code read} is the cheapest possible
 * consumer (no selector wake-ups, no pipeline, no reference counting); the only copy is the
 * kernel's into {@link BlockingPacketReader}'s reused buffer. A fan-out of a few hundred clients is
 * a few hundred mostly idle threads, which Linux handles well. A fan-out of hundreds of clients
 * that all receive each write of the source is another matter: one thread per client means a
 * wake-up and a context switch per client and write, which cost the client machine more than the
 * reads. Such a connection is opened on a {@link SocketChannel} ({@link #openChannel}) and, once
 * its dump is requested, handed to a selector ({@link #switchToNonBlocking()}).
 *
 * <p>Thread-safety: one thread uses the connection; {@link #close()} may be called from any thread
 * and makes a blocked read fail at once.
 */
public final class SourceConnection implements Closeable {
  /**
   * What this client asks for; it never sets CLIENT_DEPRECATE_EOF, so result sets end with EOF
   * packets.
   */
  private static final int CAPABILITIES =
      CapabilityFlags.CLIENT_LONG_PASSWORD
          | CapabilityFlags.CLIENT_LONG_FLAG
          | CapabilityFlags.CLIENT_PROTOCOL_41
          | CapabilityFlags.CLIENT_TRANSACTIONS
          | CapabilityFlags.CLIENT_SECURE_CONNECTION
          | CapabilityFlags.CLIENT_PLUGIN_AUTH
          | CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
          | CapabilityFlags.CLIENT_CONNECT_ATTRS;

  private static final int UTF8MB4 = 45;
  private static final int COM_QUERY = 0x03;

  private final SourceAddress address;
  private final Socket socket;

  /** The socket's channel, {@code null} for a plain socket. */
  private final SocketChannel channel;

  private final int bufferSize;
  private final int maxPacket;
  private final OutputStream out;
  private final BlockingPacketReader reader;
  private final HandshakeV10 greeting;

  private SourceConnection(
      SourceAddress address,
      Socket socket,
      SocketChannel channel,
      int bufferSize,
      int maxPacket,
      BlockingPacketReader reader,
      HandshakeV10 greeting)
      throws IOException {
    this.address = address;
    this.socket = socket;
    this.channel = channel;
    this.bufferSize = bufferSize;
    this.maxPacket = maxPacket;
    this.out = socket.getOutputStream();
    this.reader = reader;
    this.greeting = greeting;
  }

  /**
   * Connects and logs in.
   *
   * @param timeout bounds the connect and every read until {@link #readTimeout} changes it
   * @param bufferSize the read buffer ({@link BlockingPacketReader})
   * @param maxPacket the largest packet accepted
   */
  public static SourceConnection open(
      SourceAddress address, Duration timeout, int bufferSize, int maxPacket) throws IOException {
    return open(address, timeout, bufferSize, maxPacket, null);
  }

  /**
   * As {@link #open}, on a {@link SocketChannel} (in blocking mode until {@link
   * #switchToNonBlocking()}).
   */
  public static SourceConnection openChannel(
      SourceAddress address, Duration timeout, int bufferSize, int maxPacket) throws IOException {
    return open(address, timeout, bufferSize, maxPacket, SocketChannel.open());
  }

  private static SourceConnection open(
      SourceAddress address, Duration timeout, int bufferSize, int maxPacket, SocketChannel channel)
      throws IOException {
    Socket socket = channel == null ? new Socket() : channel.socket();
    try {
      socket.setTcpNoDelay(true);
      socket.setSoTimeout((int) timeout.toMillis());
      try {
        socket.connect(
            new InetSocketAddress(address.host(), address.port()), (int) timeout.toMillis());
      } catch (IOException e) {
        throw new IOException("cannot connect to " + address + ": " + e.getMessage(), e);
      }
      BlockingPacketReader reader =
          new BlockingPacketReader(
              socket.getInputStream(),
              bufferSize,
              maxPacket,
              "the source",
              "(raise --max-packet if the source's events are that large)");
      reader.next();
      byte[] hello = reader.copy();
      if (ErrPacket.isErr(hello)) {
        throw new SourceException(address + " refused the connection", ErrPacket.decode(hello));
      }
      HandshakeV10 greeting = HandshakeV10.decode(hello);
      SourceConnection connection =
          new SourceConnection(address, socket, channel, bufferSize, maxPacket, reader, greeting);
      connection.login();
      return connection;
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  private void login() throws IOException {
    PasswordLogin login =
        new PasswordLogin(
            address.password(),
            greeting.authPluginName(),
            greeting.scramble(),
            greeting.serverVersion());
    int capabilities = CAPABILITIES & greeting.capabilities();
    byte[] first = login.firstResponse();
    write(
        new HandshakeResponse41(
                capabilities,
                MysqlPacket.MAX_FRAME_PAYLOAD,
                UTF8MB4,
                address.user(),
                first,
                null,
                login.plugin(),
                Map.of("_client_name", "relay-bench", "program_name", "relay-bench"))
            .encode(),
        reader.lastSequence() + 1);
    while (true) {
      reader.next();
      byte[] p = reader.copy();
      if (p.length > 0 && p[0] == 0) {
        return;
      }
      if (ErrPacket.isErr(p)) {
        throw new SourceException(
            address + " refused user '" + address.user() + "'", ErrPacket.decode(p));
      }
      byte[] answer = login.answer(p);
      if (answer != null) {
        write(answer, reader.lastSequence() + 1);
      }
    }
  }

  /** The version string of the handshake, e.g. {@code 9.7.4} or {@code 5.5.5-10.11.19-MariaDB}. */
  public String serverVersion() {
    return greeting.serverVersion();
  }

  /** The source's id for this connection. */
  public long connectionId() {
    return greeting.connectionId();
  }

  public SourceAddress address() {
    return address;
  }

  /** Runs a statement that returns rows; the values as text ({@code null} for SQL NULL). */
  public List<List<String>> query(String sql) throws IOException {
    QueryResponse response = ask(sql);
    if (response instanceof QueryResponse.Rows rows) {
      return rows.resultSet().rows();
    }
    return List.of();
  }

  /** The first value of the first row, or {@code null} if there is no row. */
  public String queryValue(String sql) throws IOException {
    List<List<String>> rows = query(sql);
    return rows.isEmpty() || rows.get(0).isEmpty() ? null : rows.get(0).get(0);
  }

  /** Runs a statement; its rows, if any, are read and dropped. */
  public void execute(String sql) throws IOException {
    ask(sql);
  }

  private QueryResponse ask(String sql) throws IOException {
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    byte[] payload = new byte[text.length + 1];
    payload[0] = COM_QUERY;
    System.arraycopy(text, 0, payload, 1, text.length);
    send(payload);
    QueryResponseReader answer = new QueryResponseReader(false, 4096, 1_000_000);
    do {
      reader.next();
    } while (!answer.accept(reader.copy()));
    QueryResponse response = answer.response();
    if (response instanceof QueryResponse.Err err) {
      throw new SourceException(address + " failed '" + sql + "'", err.err());
    }
    return response;
  }

  /**
   * Sends a command (sequence id 0); the answer's packets count from 1 and are read from {@link
   * #packets()}.
   */
  public void send(byte[] payload) throws IOException {
    if (payload.length >= MysqlPacket.MAX_FRAME_PAYLOAD) {
      throw new IllegalArgumentException(
          "command of " + payload.length + " bytes does not fit one packet");
    }
    write(payload, 0);
    reader.expectSequence(1);
  }

  private void write(byte[] payload, int sequence) throws IOException {
    byte[] frame = new byte[4 + payload.length];
    frame[0] = (byte) payload.length;
    frame[1] = (byte) (payload.length >>> 8);
    frame[2] = (byte) (payload.length >>> 16);
    frame[3] = (byte) sequence;
    System.arraycopy(payload, 0, frame, 4, payload.length);
    out.write(frame);
    out.flush();
    reader.expectSequence(sequence + 1);
  }

  /** The packets of the answer to the last command. */
  public BlockingPacketReader packets() {
    return reader;
  }

  /**
   * Hands the rest of the stream (the answer to the last command) to a non-blocking reader: the
   * channel goes to non-blocking mode, and the returned frames start with what {@link #packets()}
   * had read ahead. The connection's own reads and commands must not be used afterwards. Only for a
   * connection made by {@link #openChannel}.
   */
  public PacketFrames switchToNonBlocking() throws IOException {
    if (channel == null) {
      throw new IllegalStateException(this + " was not opened on a channel");
    }
    channel.configureBlocking(false);
    return new PacketFrames(
        reader.takeBuffered(), bufferSize, maxPacket, reader.expectedSequence());
  }

  /** The channel of a connection made by {@link #openChannel}; {@code null} otherwise. */
  public SocketChannel channel() {
    return channel;
  }

  /** From now on a read that waits longer than {@code timeout} fails; zero waits forever. */
  public void readTimeout(Duration timeout) throws IOException {
    socket.setSoTimeout((int) timeout.toMillis());
  }

  /** Closes the socket; a read blocked on it fails. Idempotent, any thread. */
  @Override
  public void close() throws IOException {
    socket.close();
  }

  @Override
  public String toString() {
    return "connection "
        + greeting.connectionId()
        + " to "
        + address
        + " ("
        + greeting.serverVersion()
        + ")";
  }
}
