package org.binlogrelay.protocol.testing;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.auth.RsaKeyPair;
import org.binlogrelay.protocol.handshake.AuthMoreData;
import org.binlogrelay.protocol.handshake.AuthSwitchRequest;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeResponse41;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.handshake.SslRequest;
import org.binlogrelay.protocol.packet.BlockingPacketReader;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.MysqlPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.query.QueryResponse;
import org.binlogrelay.protocol.query.QueryResponseReader;

/**
 * Test side: the one raw MySQL client the tests share (server unit tests and the end-to-end ITs,
 * through this module's test-jar), built on the protocol codecs. It reads the greeting, logs in
 * with either password plugin (following auth switches, caching_sha2_password's fast path and its
 * full path: the password in clear over TLS, or RSA-encrypted with the server's public key
 * without), then sends commands and reads answers, result sets and dump streams packet by packet.
 * Packets go over a {@link Transport}: a socket (reading through {@link BlockingPacketReader},
 * continuation frames joined), an {@link EmbeddedChannel}, or either one {@link #tapped} to record
 * every packet.
 *
 * <p>Sequence ids are checked: a command starts at 0, and each packet {@link #receive} reads must
 * carry the next id, as MySQL's client library insists; the dump stream continues the numbering.
 * {@link #receiveOrNull} takes whatever comes (the socket transport still insists on the next id
 * after the last packet either way).
 *
 * <p>Not thread-safe.
 */
public final class WireClient implements AutoCloseable {

  /** One logical packet: the first frame's sequence id and the joined payload. */
  public record Packet(int sequenceId, byte[] payload) {
    /** The first payload byte, -1 for an empty payload. */
    public int first() {
      return payload.length == 0 ? -1 : payload[0] & 0xff;
    }

    public boolean isOk() {
      return OkPacket.isOk(payload);
    }

    public boolean isErr() {
      return ErrPacket.isErr(payload);
    }

    public ErrPacket err() {
      return ErrPacket.decode(payload);
    }

    /**
     * An EOF packet (0xfe, shorter than 9 bytes): the end of a non-blocking dump or of a result set
     * part.
     */
    public boolean isEof() {
      return payload.length > 0 && payload.length < 9 && (payload[0] & 0xff) == 0xfe;
    }

    /** A dump stream's event packet: 0x00 and the event. */
    public boolean isEvent() {
      return payload.length > 0 && payload[0] == 0;
    }

    /** The event of an event packet, without the 0x00 marker. */
    public byte[] event() {
      if (!isEvent()) {
        throw new AssertionError(
            "not an event packet: first byte " + first() + " of " + payload.length);
      }
      return Arrays.copyOfRange(payload, 1, payload.length);
    }

    /** The event type of an event packet. */
    public int eventType() {
      return payload[1 + 4] & 0xff;
    }

    /** Frames the packet took on the wire. */
    public int frames() {
      return MysqlPacket.frameCount(payload.length);
    }
  }

  /** Where packets go. */
  public interface Transport extends AutoCloseable {
    void send(int sequenceId, byte[] payload);

    /** The next packet, or null if the server closed the connection. */
    Packet receive();

    /** Starts TLS as the client (after an SSLRequest was sent); sockets only. */
    default void upgrade(SSLContext context) {
      throw new UnsupportedOperationException("TLS needs a socket transport");
    }

    /** The leaf certificate the server presented; sockets with TLS only. */
    default X509Certificate serverCertificate() {
      throw new UnsupportedOperationException("a certificate needs a socket transport");
    }

    /** From now on a read that waits longer than {@code timeout} fails; sockets only. */
    default void readTimeout(Duration timeout) {
      throw new UnsupportedOperationException("read timeouts need a socket transport");
    }

    @Override
    void close();
  }

  /** The server answered with ERR. */
  public static final class ServerError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    public final transient ErrPacket err;

    public ServerError(ErrPacket err) {
      super(err.code() + " (" + err.sqlState() + "): " + err.message());
      this.err = err;
    }
  }

  /** What the client announces unless told otherwise (no CLIENT_SSL: {@link #startTls} adds it). */
  public static final int CAPABILITIES =
      CapabilityFlags.CLIENT_PROTOCOL_41
          | CapabilityFlags.CLIENT_SECURE_CONNECTION
          | CapabilityFlags.CLIENT_PLUGIN_AUTH
          | CapabilityFlags.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
          | CapabilityFlags.CLIENT_CONNECT_ATTRS
          | CapabilityFlags.CLIENT_DEPRECATE_EOF
          | CapabilityFlags.CLIENT_LONG_PASSWORD
          | CapabilityFlags.CLIENT_TRANSACTIONS
          | CapabilityFlags.CLIENT_CONNECT_WITH_DB;

  /** The largest packet a socket transport accepts. */
  static final int MAX_PACKET = 1 << 30;

  private final Transport transport;
  private final HandshakeV10 greeting;
  private int capabilities = CAPABILITIES;
  private int seq;
  private boolean secure;
  private final List<String> steps = new ArrayList<>();

  private WireClient(Transport transport) {
    this.transport = transport;
    Packet first = transport.receive();
    if (first == null) {
      throw new IllegalStateException("server closed the connection before its greeting");
    }
    if (first.isErr()) {
      throw new ServerError(first.err());
    }
    this.greeting = HandshakeV10.decode(first.payload());
    this.seq = first.sequenceId() + 1;
  }

  /** Reads the greeting from {@code transport}. */
  public static WireClient over(Transport transport) {
    return new WireClient(transport);
  }

  /** Connects to {@code 127.0.0.1:port} and reads the greeting; reads time out after 20 s. */
  public static WireClient connect(int port) {
    return connect("127.0.0.1", port, 0, Duration.ofSeconds(20));
  }

  /**
   * Connects and reads the greeting.
   *
   * @param receiveBufferBytes the socket's receive buffer (set before connecting), 0 for the
   *     default
   * @param readTimeout how long a read may wait
   */
  public static WireClient connect(
      String host, int port, int receiveBufferBytes, Duration readTimeout) {
    return new WireClient(SocketTransport.open(host, port, receiveBufferBytes, readTimeout));
  }

  /**
   * {@code transport} with every packet either way also given to {@code tap} (true: sent by the
   * client).
   */
  public static Transport tapped(Transport transport, BiConsumer<Boolean, byte[]> tap) {
    return new Transport() {
      @Override
      public void send(int sequenceId, byte[] payload) {
        tap.accept(true, payload);
        transport.send(sequenceId, payload);
      }

      @Override
      public Packet receive() {
        Packet p = transport.receive();
        if (p != null) {
          tap.accept(false, p.payload());
        }
        return p;
      }

      @Override
      public void upgrade(SSLContext context) {
        transport.upgrade(context);
      }

      @Override
      public X509Certificate serverCertificate() {
        return transport.serverCertificate();
      }

      @Override
      public void readTimeout(Duration timeout) {
        transport.readTimeout(timeout);
      }

      @Override
      public void close() {
        transport.close();
      }
    };
  }

  public HandshakeV10 greeting() {
    return greeting;
  }

  /** What the last login did, e.g. [switch mysql_native_password, full, public key, ok]. */
  public List<String> steps() {
    return steps;
  }

  public WireClient withoutCapability(int flag) {
    capabilities &= ~flag;
    return this;
  }

  public WireClient withCapability(int flag) {
    capabilities |= flag;
    return this;
  }

  /** The leaf certificate the server presented in {@link #startTls}. */
  public X509Certificate serverCertificate() {
    return transport.serverCertificate();
  }

  /** Sends an SSLRequest and starts TLS (a socket transport, possibly {@link #tapped}). */
  public WireClient startTls(SSLContext context) {
    transport.send(
        seq++, new SslRequest(capabilities | CapabilityFlags.CLIENT_SSL, 1 << 24, 255).encode());
    transport.upgrade(context);
    capabilities |= CapabilityFlags.CLIENT_SSL;
    secure = true;
    return this;
  }

  /** {@link #startTls} trusting whatever certificate the server presents. */
  public WireClient startTlsTrustingAll() {
    return startTls(trustAll());
  }

  /**
   * Logs in with the plugin the greeting names and no database ({@link #login(String, String,
   * String, String)}).
   */
  public Packet login(String user, String password) {
    return login(user, password, greeting.authPluginName(), null);
  }

  /**
   * Logs in with {@code plugin}'s first response, then follows the server. Returns the final OK
   * packet; throws {@link ServerError} with the server's ERR.
   */
  public Packet login(String user, String password, String plugin, String database) {
    steps.clear();
    byte[] first = respond(plugin, password, greeting.scramble());
    transport.send(
        seq++,
        new HandshakeResponse41(
                capabilities,
                1 << 24,
                255,
                user,
                first,
                database,
                plugin,
                Map.of("_client_name", "binlog-relay-test"))
            .encode());
    byte[] scramble = greeting.scramble();
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
        scramble = Arrays.copyOf(s.pluginData(), 20);
        transport.send(seq++, respond(s.pluginName(), password, scramble));
        continue;
      }
      byte[] data = AuthMoreData.decode(b).data();
      if (data.length == 1 && data[0] == 3) {
        steps.add("fast ok");
        continue;
      }
      if (data.length == 1 && data[0] == 4) {
        steps.add("full");
        transport.send(seq++, secure ? nul(password) : new byte[] {2});
        continue;
      }
      steps.add("public key");
      byte[] plain = nul(password);
      for (int i = 0; i < plain.length; i++) {
        plain[i] ^= scramble[i % scramble.length];
      }
      try {
        transport.send(
            seq++,
            RsaKeyPair.encrypt(
                new String(data, StandardCharsets.US_ASCII), plain, RsaKeyPair.Padding.OAEP_SHA1));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static byte[] respond(String plugin, String password, byte[] scramble) {
    if (password.isEmpty()) {
      return new byte[0];
    }
    return plugin.equals(NativePasswordHash.PLUGIN)
        ? NativePasswordHash.scramble(password, scramble)
        : CachingSha2Hash.scramble(password, scramble);
  }

  private static byte[] nul(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return Arrays.copyOf(b, b.length + 1);
  }

  /** COM_QUERY's payload. */
  public static byte[] comQuery(String sql) {
    byte[] text = sql.getBytes(StandardCharsets.UTF_8);
    byte[] payload = new byte[text.length + 1];
    payload[0] = 0x03;
    System.arraycopy(text, 0, payload, 1, text.length);
    return payload;
  }

  /** Sends a command packet (sequence 0) without waiting for an answer. */
  public void send(byte[] payload) {
    seq = 0;
    transport.send(seq++, payload);
  }

  /** Sends a command packet (sequence 0) and returns the first packet of the answer. */
  public Packet command(byte[] payload) {
    send(payload);
    return receive();
  }

  /**
   * Runs a statement and reads its whole answer (OK, ERR or a result set; ERR is returned, not
   * thrown).
   */
  public QueryResponse query(String sql) {
    Packet p = command(comQuery(sql));
    return readAnswer(p);
  }

  /**
   * Reads the whole answer to a query sent earlier with {@link #send} (its packets count from 1
   * again).
   */
  public QueryResponse answer() {
    seq = 1;
    return readAnswer(receive());
  }

  private QueryResponse readAnswer(Packet p) {
    QueryResponseReader reader =
        new QueryResponseReader(
            (capabilities & CapabilityFlags.CLIENT_DEPRECATE_EOF) != 0, 4096, 100_000);
    while (!reader.accept(p.payload())) {
      p = receive();
    }
    return reader.response();
  }

  /** Runs statements that answer OK ({@code SET ...}); throws {@link ServerError} on ERR. */
  public WireClient execute(String... statements) {
    for (String sql : statements) {
      QueryResponse answer = query(sql);
      if (answer instanceof QueryResponse.Err e) {
        throw new ServerError(e.err());
      }
      if (!(answer instanceof QueryResponse.Ok)) {
        throw new IllegalStateException(sql + " answered " + answer);
      }
    }
    return this;
  }

  /**
   * The rows of a statement's result set, values as text (null for SQL NULL); throws {@link
   * ServerError} on ERR.
   */
  public List<List<String>> rows(String sql) {
    QueryResponse answer = query(sql);
    if (answer instanceof QueryResponse.Err e) {
      throw new ServerError(e.err());
    }
    if (answer instanceof QueryResponse.Rows rows) {
      return rows.resultSet().rows();
    }
    return List.of();
  }

  /**
   * Sends a dump request and reads the answer until EOF, ERR, the server closing, {@code
   * maxPackets} packets, or {@code idle} without a packet (a blocking dump that caught up; socket
   * transport only).
   */
  public List<Packet> dump(byte[] request, int maxPackets, Duration idle) {
    List<Packet> packets = new ArrayList<>();
    send(request);
    readTimeout(idle);
    while (packets.size() < maxPackets) {
      Packet p;
      try {
        p = receiveOrNull();
      } catch (UncheckedIOException e) {
        if (e.getCause() instanceof SocketTimeoutException) {
          return packets;
        }
        throw e;
      }
      if (p == null) {
        return packets;
      }
      seq = p.sequenceId() + p.frames();
      packets.add(p);
      if (p.isEof() || p.isErr()) {
        return packets;
      }
    }
    return packets;
  }

  /** From now on a read that waits longer than {@code timeout} fails (socket transport only). */
  public void readTimeout(Duration timeout) {
    transport.readTimeout(timeout);
  }

  /**
   * The next packet, which must carry the next sequence id; throws if the server closed the
   * connection.
   */
  public Packet receive() {
    Packet p = transport.receive();
    if (p == null) {
      throw new IllegalStateException("server closed the connection");
    }
    if (p.sequenceId() != (seq & 0xff)) {
      throw new IllegalStateException(
          "packet with sequence id " + p.sequenceId() + ", expected " + (seq & 0xff));
    }
    seq += p.frames();
    return p;
  }

  /** The next packet as it comes, null once the server has closed the connection. */
  public Packet receiveOrNull() {
    return transport.receive();
  }

  @Override
  public void close() {
    transport.close();
  }

  /** A TLS context that trusts any server certificate (tests against self-signed servers). */
  public static SSLContext trustAll() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          null,
          new TrustManager[] {
            new X509TrustManager() {
              @Override
              public void checkClientTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public void checkServerTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
              }
            }
          },
          null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
