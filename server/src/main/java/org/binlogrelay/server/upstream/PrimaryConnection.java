package org.binlogrelay.server.upstream;

import com.github.shyiko.mysql.binlog.network.Authenticator;
import com.github.shyiko.mysql.binlog.network.ServerException;
import com.github.shyiko.mysql.binlog.network.protocol.GreetingPacket;
import com.github.shyiko.mysql.binlog.network.protocol.PacketChannel;
import com.github.shyiko.mysql.binlog.network.protocol.command.ByteArrayCommand;
import com.github.shyiko.mysql.binlog.network.protocol.command.SSLRequestCommand;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.packet.BlockingPacketReader;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.MysqlPacket;
import org.binlogrelay.protocol.query.QueryResponse;

/**
 * One client connection to the primary (or, through {@link QueryConnection}, to another server the
 * relay only runs statements on: its schema source). mysql-binlog-connector-java does the parts it
 * does well: the handshake ({@link GreetingPacket}) and authentication ({@link Authenticator}:
 * {@code mysql_native_password}, {@code caching_sha2_password} with the fast path or, without TLS,
 * the RSA public key fetched from the server). After that the connection reads packets itself
 * ({@link BlockingPacketReader}) and writes commands through the library's {@link PacketChannel},
 * so every byte the primary sends passes through code that checks it and fails loudly: nothing is
 * skipped, nothing is read ahead beyond the channel's and the reader's bounded buffers.
 *
 * <p>TLS ({@link TlsConfig}): after the handshake packet, if the mode asks for TLS and the primary
 * offers it (CLIENT_SSL), the relay sends the SSL request and continues over the JDK's {@link
 * SSLSocket} ({@link TlsContexts}); authentication then sends the password inside TLS. A primary
 * that does not offer TLS is refused before anything else is sent when the mode requires TLS; a
 * certificate the mode refuses stops the relay ({@link FatalUpstreamException}: a wrong CA and a
 * man in the middle look the same).
 *
 * <p>Timeouts: connecting and every statement before the dump are bounded by the connect timeout;
 * during the dump, {@link #streamTimeout} makes a read that waits longer than the liveness bound
 * fail with a {@link java.net.SocketTimeoutException}.
 *
 * <p>Thread-safety: one thread uses the connection; {@link #close()} may be called from any thread,
 * and makes a blocked read fail at once (that is how the replicator stops). During the dump, one
 * other thread may write semi-sync acknowledgements ({@link #sendAck}) while the connection's
 * thread reads: a socket's two directions are independent, and the dump thread sends no command.
 */
final class PrimaryConnection implements Closeable {
  /** CLIENT_SSL: the server can switch to TLS after its handshake packet. */
  static final int CLIENT_SSL = 0x0800;

  /** COM_QUERY's command byte. */
  static final int COM_QUERY = 0x03;

  /** The packet reader's buffer; the channel's stream buffers too. */
  private static final int READ_BUFFER = 16 * 1024;

  private final String role;
  private final String address;
  private final Socket socket;
  private final String tls;
  private final PacketChannel channel;
  private final BlockingPacketReader reader;
  private final String serverVersion;
  private final long connectionId;
  private final Object ackLock = new Object();

  private PrimaryConnection(
      String role,
      String address,
      Socket socket,
      PacketChannel channel,
      int maxPayload,
      GreetingPacket greeting,
      String tls) {
    this.role = role;
    this.address = address;
    this.socket = socket;
    this.tls = tls;
    this.channel = channel;
    this.reader =
        new BlockingPacketReader(
            channel.getInputStream(),
            READ_BUFFER,
            maxPayload,
            "the " + role,
            "(the largest event accepted; see the store's maxEventSize)");
    this.serverVersion = greeting.getServerVersion();
    this.connectionId = greeting.getThreadId();
  }

  /**
   * Connects {@code socket} (created by the caller, so that it can close it to abort) to the
   * primary and authenticates.
   *
   * @param maxPayload the largest packet accepted afterwards
   * @throws PrimaryErrorException if the primary refused the connection or the credentials
   */
  static PrimaryConnection open(Socket socket, UpstreamConfig config, int maxPayload)
      throws IOException {
    return open(socket, config.endpoint(), maxPayload);
  }

  /**
   * Connects {@code socket} to {@code endpoint} and authenticates: the primary, or another server
   * the relay is a client of (its schema source); messages name the endpoint's role.
   *
   * @throws PrimaryErrorException if the server refused the connection or the credentials
   */
  static PrimaryConnection open(Socket socket, ServerEndpoint endpoint, int maxPayload)
      throws IOException {
    String address = endpoint.address();
    String role = endpoint.role();
    int timeout = (int) endpoint.connectTimeout().toMillis();
    socket.setTcpNoDelay(true);
    socket.setKeepAlive(true);
    socket.setSoTimeout(timeout);
    socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), timeout);
    PacketChannel channel = new PacketChannel(socket);
    byte[] hello = channel.read();
    if (ErrPacket.isErr(hello)) {
      throw PrimaryErrorException.of(
          role + " " + address + " refused the connection", ErrPacket.decode(hello));
    }
    GreetingPacket greeting = new GreetingPacket(hello);
    SSLSocket secured = startTls(socket, channel, greeting, endpoint);
    try {
      new Authenticator(greeting, channel, null, endpoint.user(), endpoint.password())
          .authenticate();
    } catch (ServerException e) {
      throw new PrimaryErrorException(
          role + " " + address + " did not authenticate user '" + endpoint.user() + "'",
          e.getErrorCode(),
          e.getSqlState() == null ? ErrPacket.GENERAL_SQL_STATE : e.getSqlState(),
          e.getMessage());
    }
    channel.authenticationComplete();
    String tls = null;
    if (secured != null) {
      SSLSession session = secured.getSession();
      tls = session.getProtocol() + " " + session.getCipherSuite();
    }
    return new PrimaryConnection(
        role, address, secured != null ? secured : socket, channel, maxPayload, greeting, tls);
  }

  /**
   * Switches to TLS if the mode asks for it and the primary offers it.
   *
   * @return the TLS socket, or {@code null} for plain TCP
   * @throws FatalUpstreamException if TLS is required and not offered, or the certificate is
   *     refused
   */
  private static SSLSocket startTls(
      Socket socket, PacketChannel channel, GreetingPacket greeting, ServerEndpoint endpoint)
      throws IOException {
    TlsConfig tls = endpoint.tls();
    String address = endpoint.address();
    String role = endpoint.role();
    if (tls.mode() == TlsMode.DISABLED) {
      return null;
    }
    if ((greeting.getServerCapabilities() & CLIENT_SSL) == 0) {
      if (tls.mode().requiresTls()) {
        throw new FatalUpstreamException(
            role
                + " "
                + address
                + " ("
                + greeting.getServerVersion()
                + ") does not"
                + " offer TLS, but the relay's TLS mode is "
                + tls.mode()
                + "; nothing was sent to it (no password, no"
                + " RSA key request). Enable TLS on the "
                + role
                + " (ssl_cert, ssl_key) or choose TLS mode PREFERRED or"
                + " DISABLED");
      }
      return null;
    }
    SSLSocket secured = TlsContexts.layer(tls, socket, endpoint.host(), endpoint.port());
    SSLRequestCommand request = new SSLRequestCommand();
    request.setCollation(greeting.getServerCollation());
    channel.write(request);
    try {
      channel.upgradeToSSL(plain -> secured, null);
    } catch (SSLHandshakeException e) {
      if (certificateRefused(e)) {
        throw new FatalUpstreamException(
            role
                + " "
                + address
                + ": TLS certificate refused ("
                + tls
                + "): "
                + e.getMessage()
                + ". Check the CA file and the "
                + role
                + "'s certificate"
                + (tls.mode() == TlsMode.VERIFY_IDENTITY
                    ? " (it must name host '"
                        + endpoint.host()
                        + "' in its subject alternative names)"
                    : "")
                + "; a man in the middle looks the same",
            e);
      }
      throw e;
    }
    return secured;
  }

  private static boolean certificateRefused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof GeneralSecurityException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The TLS protocol and cipher suite, e.g. {@code TLSv1.3 TLS_AES_256_GCM_SHA384}; {@code null}
   * for plain TCP.
   */
  String tls() {
    return tls;
  }

  /**
   * The version string of the primary's handshake, e.g. {@code 9.7.4} or {@code
   * 5.5.5-10.11.19-MariaDB}.
   */
  String serverVersion() {
    return serverVersion;
  }

  /** The primary's id for this connection (what {@code KILL} takes). */
  long connectionId() {
    return connectionId;
  }

  /** {@code host:port}, for messages. */
  String address() {
    return address;
  }

  /** Runs a statement that returns rows. */
  ResultRows query(String sql) throws IOException {
    send(comQuery(sql));
    return ResultSetReader.read(reader, role + " " + address + " failed '" + sql + "'");
  }

  /** Runs a statement that returns no rows. */
  void execute(String sql) throws IOException {
    send(comQuery(sql));
    ResultSetReader.readOk(reader, role + " " + address + " failed '" + sql + "'");
  }

  /**
   * Runs a statement and returns the server's answer as it came, to be passed on to a client: its
   * OK, its ERR (not thrown), or its result set byte for byte ({@link
   * ResultSetReader#readForwarded}).
   *
   * @param maxBytes the most bytes of column definitions and rows accepted
   * @throws QueryConnection.AnswerTooLargeException if the result set is larger; the connection is
   *     out of step
   */
  QueryResponse forward(String sql, long maxBytes) throws IOException {
    send(comQuery(sql));
    return ResultSetReader.readForwarded(
        reader, maxBytes, role + " " + address + " answering '" + sql + "'");
  }

  /** COM_QUERY's payload: {@code 0x03 | statement text}. */
  static byte[] comQuery(String sql) {
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    return new ByteWriter(1 + text.length).u8(COM_QUERY).bytes(text).toByteArray();
  }

  /** Sends a command whose answer is OK or ERR. */
  void command(byte[] payload, String what) throws IOException {
    send(payload);
    ResultSetReader.readOk(reader, role + " " + address + " refused " + what);
  }

  /** Sends a command (sequence id 0); the answer's packets count from 1. */
  void send(byte[] payload) throws IOException {
    if (payload.length >= MysqlPacket.MAX_FRAME_PAYLOAD) {
      throw new IllegalArgumentException(
          "command of " + payload.length + " bytes does not fit one packet");
    }
    channel.write(new ByteArrayCommand(payload));
    reader.expectSequence(1);
  }

  /**
   * Writes one packet with sequence id 0 without expecting an answer: a semi-sync acknowledgement
   * during the dump. The reading side's sequence is left alone (the primary's dump stream keeps its
   * own numbering).
   */
  void sendAck(byte[] payload) throws IOException {
    if (payload.length >= MysqlPacket.MAX_FRAME_PAYLOAD) {
      throw new IllegalArgumentException(
          "ack of " + payload.length + " bytes does not fit one packet");
    }
    byte[] frame = new byte[4 + payload.length];
    frame[0] = (byte) payload.length;
    frame[1] = (byte) (payload.length >>> 8);
    frame[2] = (byte) (payload.length >>> 16);
    frame[3] = 0;
    System.arraycopy(payload, 0, frame, 4, payload.length);
    synchronized (ackLock) {
      channel.getOutputStream().write(frame);
      channel.getOutputStream().flush();
    }
  }

  /**
   * The next packet read must have sequence id 1: the primary restarted its numbering (after a
   * semi-sync event that asked for an ack, see {@link SemiSyncPackets}).
   */
  void restartSequence() {
    reader.expectSequence(1);
  }

  /** Reads the next packet of an answer or of the dump stream. */
  byte[] readPacket() throws IOException {
    return reader.read();
  }

  /** From now on a read that waits longer than {@code timeout} fails. */
  void streamTimeout(Duration timeout) throws IOException {
    socket.setSoTimeout((int) timeout.toMillis());
  }

  /** Closes the socket; a read blocked on it fails. Idempotent, any thread. */
  @Override
  public void close() throws IOException {
    channel.close();
  }

  @Override
  public String toString() {
    return "connection " + connectionId + " to " + address + " (" + serverVersion + ")";
  }
}
