package org.binlogrelay.server.upstream;

import com.github.shyiko.mysql.binlog.network.Authenticator;
import com.github.shyiko.mysql.binlog.network.ServerException;
import com.github.shyiko.mysql.binlog.network.protocol.GreetingPacket;
import com.github.shyiko.mysql.binlog.network.protocol.PacketChannel;
import com.github.shyiko.mysql.binlog.network.protocol.command.ByteArrayCommand;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import org.binlogrelay.protocol.packet.ErrPacket;

/**
 * One client connection to the primary. mysql-binlog-connector-java does the parts it does well: the
 * handshake ({@link GreetingPacket}) and authentication ({@link Authenticator}: {@code mysql_native_password},
 * {@code caching_sha2_password} with the fast path or, without TLS, the RSA public key fetched from the server).
 * After that the connection reads packets itself ({@link PacketReader}) and writes commands through the
 * library's {@link PacketChannel}, so every byte the primary sends passes through code that checks it and
 * fails loudly: nothing is skipped, nothing is read ahead beyond the channel's bounded socket buffer.
 *
 * <p>Timeouts: connecting and every statement before the dump are bounded by the connect timeout; during the
 * dump, {@link #streamTimeout} makes a read that waits longer than the liveness bound fail with a {@link
 * java.net.SocketTimeoutException}.
 *
 * <p>Thread-safety: one thread uses the connection; {@link #close()} may be called from any thread, and makes
 * a blocked read fail at once (that is how the replicator stops).
 */
final class PrimaryConnection implements Closeable {
  private final String address;
  private final Socket socket;
  private final PacketChannel channel;
  private final PacketReader reader;
  private final String serverVersion;
  private final long connectionId;

  private PrimaryConnection(String address, Socket socket, PacketChannel channel, int maxPayload,
      GreetingPacket greeting) {
    this.address = address;
    this.socket = socket;
    this.channel = channel;
    this.reader = new PacketReader(channel.getInputStream(), maxPayload);
    this.serverVersion = greeting.getServerVersion();
    this.connectionId = greeting.getThreadId();
  }

  /**
   * Connects {@code socket} (created by the caller, so that it can close it to abort) to the primary and
   * authenticates.
   *
   * @param maxPayload the largest packet accepted afterwards
   * @throws PrimaryErrorException if the primary refused the connection or the credentials
   */
  static PrimaryConnection open(Socket socket, UpstreamConfig config, int maxPayload) throws IOException {
    String address = config.host() + ":" + config.port();
    int timeout = (int) config.connectTimeout().toMillis();
    socket.setTcpNoDelay(true);
    socket.setKeepAlive(true);
    socket.setSoTimeout(timeout);
    socket.connect(new InetSocketAddress(config.host(), config.port()), timeout);
    PacketChannel channel = new PacketChannel(socket);
    byte[] hello = channel.read();
    if (ErrPacket.isErr(hello)) {
      throw PrimaryErrorException.of("primary " + address + " refused the connection", ErrPacket.decode(hello));
    }
    GreetingPacket greeting = new GreetingPacket(hello);
    try {
      new Authenticator(greeting, channel, null, config.user(), config.password()).authenticate();
    } catch (ServerException e) {
      throw new PrimaryErrorException("primary " + address + " did not authenticate user '" + config.user() + "'",
          e.getErrorCode(), e.getSqlState() == null ? ErrPacket.GENERAL_SQL_STATE : e.getSqlState(), e.getMessage());
    }
    channel.authenticationComplete();
    return new PrimaryConnection(address, socket, channel, maxPayload, greeting);
  }

  /** The version string of the primary's handshake, e.g. {@code 9.7.4} or {@code 5.5.5-10.11.19-MariaDB}. */
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
    send(ReplicationCommands.query(sql));
    return ResultSetReader.read(reader, "primary " + address + " failed '" + sql + "'");
  }

  /** Runs a statement that returns no rows. */
  void execute(String sql) throws IOException {
    send(ReplicationCommands.query(sql));
    ResultSetReader.readOk(reader, "primary " + address + " failed '" + sql + "'");
  }

  /** Sends a command whose answer is OK or ERR. */
  void command(byte[] payload, String what) throws IOException {
    send(payload);
    ResultSetReader.readOk(reader, "primary " + address + " refused " + what);
  }

  /** Sends a command (sequence id 0); the answer's packets count from 1. */
  void send(byte[] payload) throws IOException {
    if (payload.length >= PacketReader.MAX_FRAME) {
      throw new IllegalArgumentException("command of " + payload.length + " bytes does not fit one packet");
    }
    channel.write(new ByteArrayCommand(payload));
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
