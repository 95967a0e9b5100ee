package org.binlogrelay.server.downstream;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.EventExecutor;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.auth.AuthExchange;
import org.binlogrelay.protocol.auth.AuthPlugin;
import org.binlogrelay.protocol.auth.AuthRequest;
import org.binlogrelay.protocol.auth.AuthStep;
import org.binlogrelay.protocol.auth.CertificateProof;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.auth.Scrambles;
import org.binlogrelay.protocol.handshake.AuthMoreData;
import org.binlogrelay.protocol.handshake.AuthSwitchRequest;
import org.binlogrelay.protocol.handshake.CapabilityFlags;
import org.binlogrelay.protocol.handshake.HandshakeResponse41;
import org.binlogrelay.protocol.handshake.HandshakeV10;
import org.binlogrelay.protocol.handshake.SslRequest;
import org.binlogrelay.protocol.packet.MysqlPacket;
import org.binlogrelay.protocol.packet.OkPacket;
import org.binlogrelay.protocol.packet.PacketAggregator;
import org.binlogrelay.protocol.packet.PacketDecoder;
import org.binlogrelay.server.downstream.account.UserAccount;
import org.binlogrelay.server.downstream.sql.ClientContext;
import org.binlogrelay.server.downstream.sql.ErrorMessages;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection phase, server side: greeting, optional TLS upgrade, handshake response,
 * authentication (with an auth switch when the client's plugin is not the account's), then OK and
 * the hand-over to {@link CommandPhaseHandler}. A state machine:
 *
 * <pre>
 *   GREETING_SENT -- SSLRequest --> TLS (SslHandler in, HandshakeFrameDecoder again behind it)
 *   GREETING_SENT / TLS -- HandshakeResponse41 --> VERIFYING (or AUTH after an AuthSwitchRequest)
 *   AUTH -- client packet --> VERIFYING: the AuthExchange step runs on the server's auth executor, never on the
 *           event loop (SHA-256-crypt and RSA are slow); its answer comes back to the event loop:
 *   VERIFYING -- more data --> AUTH ; accept --> OK, command phase ; reject --> ERR 1045, close
 *   VERIFYING -- client packet --> ERR 1043, close (a client waits for each answer)
 * </pre>
 *
 * <p>Over TLS the OK of a mysql_native_password login carries MariaDB 11.4+'s {@link
 * CertificateProof} in its info.
 *
 * <p>Failures answer as MySQL does: a malformed response is ER_HANDSHAKE_ERROR (1043), a wrong
 * password or unknown user ER_ACCESS_DENIED_ERROR (1045) naming the user and the client's address,
 * a right password over plain TCP when TLS is required ER_SECURE_TRANSPORT_REQUIRED (3159, checked
 * after the password, as MySQL does). 1045 also counts against the host in the {@link
 * org.binlogrelay.server.downstream.account.LoginThrottle}. An unknown user goes through the same
 * exchange as a known one, so the two cannot be told apart. A client that does not finish within
 * the connect timeout is dropped.
 *
 * <p>One instance per channel; event loop only, except the exchange step handed to the auth
 * executor (the handler touches nothing else while it runs).
 */
final class ConnectionPhaseHandler extends SimpleChannelInboundHandler<MysqlPacket> {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionPhaseHandler.class);

  private enum State {
    GREETING_SENT,
    TLS,
    AUTH,
    VERIFYING,
    DONE
  }

  private final ServerState server;
  private State state = State.GREETING_SENT;
  private long connectionId;
  private byte[] scramble;
  private int serverCapabilities;
  private int capabilities;
  private boolean secure;
  private String host;
  private HandshakeResponse41 response;
  private UserAccount account;
  private AuthPlugin plugin;
  private AuthExchange exchange;

  ConnectionPhaseHandler(ServerState server) {
    this.server = server;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    connectionId = server.connectionIds.incrementAndGet() & 0xffffffffL;
    host = Packets.hostOf(ctx.channel().remoteAddress());
    scramble = Scrambles.generate(server.random);
    serverCapabilities = ServerCapabilities.of(server.tls != null);
    String version =
        AnnouncedVersion.inGreeting(server.config.identity().version(), server.config.dialect());
    HandshakeV10 greeting =
        new HandshakeV10(
            version,
            connectionId,
            scramble,
            serverCapabilities,
            server.config.dialect().collationId(),
            OkPacket.SERVER_STATUS_AUTOCOMMIT,
            server.config.dialect().defaultAuthPlugin());
    Packets.write(ctx, 0, greeting.encode());
    ctx.flush();
    super.channelActive(ctx);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, MysqlPacket packet) {
    byte[] payload = Packets.bytes(packet);
    int reply = packet.nextSequenceId();
    switch (state) {
      case GREETING_SENT:
        if (SslRequest.matches(payload)) {
          startTls(ctx, reply);
          return;
        }
        handshakeResponse(ctx, payload, reply);
        return;
      case TLS:
        handshakeResponse(ctx, payload, reply);
        return;
      case AUTH:
        verify(ctx, payload, reply);
        return;
      case VERIFYING:
        // A client waits for the answer to its last auth packet; one that does not is not a MySQL
        // client.
        LOG.info(
            "Connection {} from {}: sent a packet before its login was answered; closing",
            connectionId,
            host);
        state = State.DONE;
        Packets.failAndClose(ctx, reply, ErrorMessages.badHandshake());
        return;
      default:
        // After DONE this handler is gone; nothing else can arrive here.
    }
  }

  private void startTls(ChannelHandlerContext ctx, int reply) {
    if (server.tls == null) {
      LOG.info(
          "Connection {} from {}: SSL requested but TLS is not configured", connectionId, host);
      Packets.failAndClose(ctx, reply, ErrorMessages.badHandshake());
      return;
    }
    // The ClientHello may already sit behind the SSLRequest in the frame decoder's buffer: put the
    // SslHandler
    // and a fresh frame decoder behind the old decoder, then remove it, which hands its leftover
    // bytes on.
    secure = true;
    state = State.TLS;
    ChannelPipeline p = ctx.pipeline();
    SslHandler tls = server.tls.context().newHandler(ctx.alloc());
    server.stats.tlsAccepts.incrementAndGet();
    tls.handshakeFuture()
        .addListener(
            f -> {
              if (f.isSuccess()) {
                server.stats.tlsFinished.incrementAndGet();
              }
            });
    p.addAfter(ServerPipeline.FRAME, ServerPipeline.TLS, tls);
    p.addAfter(
        ServerPipeline.TLS,
        ServerPipeline.FRAME_TLS,
        new HandshakeFrameDecoder(server.maxHandshakePacket()));
    p.remove(ServerPipeline.FRAME);
  }

  private void handshakeResponse(ChannelHandlerContext ctx, byte[] payload, int reply) {
    try {
      response = HandshakeResponse41.decode(payload, server.handshakeLimits);
    } catch (ProtocolException e) {
      LOG.info(
          "Connection {} from {}: bad handshake response: {}", connectionId, host, e.getMessage());
      server.throttle.recordFailure(host);
      Packets.failAndClose(ctx, reply, ErrorMessages.badHandshake());
      return;
    }
    capabilities = response.capabilities() & serverCapabilities;
    Optional<UserAccount> found = server.config.accounts().find(response.user(), host);
    account = found.orElse(null);
    String clientPlugin =
        CapabilityFlags.has(capabilities, CapabilityFlags.CLIENT_PLUGIN_AUTH)
            ? response.authPluginName()
            : NativePasswordHash.PLUGIN;
    String accountPlugin =
        account != null
            ? account.credential().pluginName()
            : server.plugins.containsKey(clientPlugin)
                ? clientPlugin
                : server.config.dialect().defaultAuthPlugin();
    plugin = server.plugins.get(accountPlugin);
    exchange =
        plugin.begin(
            new AuthRequest(
                account == null ? response.user() + "@?" : account.key(),
                account == null ? null : account.credential(),
                scramble,
                secure));
    if (!accountPlugin.equals(clientPlugin)
        && !CapabilityFlags.has(capabilities, CapabilityFlags.CLIENT_PLUGIN_AUTH)) {
      state = State.DONE;
      Packets.failAndClose(ctx, reply, ErrorMessages.notSupportedAuthMode());
      return;
    }
    state = State.AUTH;
    // Later packets (auth data) are ordinary packets; frames after this point go to the packet
    // decoder.
    useCommandDecoders(ctx);
    if (accountPlugin.equals(clientPlugin)) {
      verify(ctx, response.authResponse(), reply);
    } else {
      Packets.write(
          ctx, reply, new AuthSwitchRequest(accountPlugin, plugin.initialData(scramble)).encode());
      ctx.flush();
    }
  }

  /**
   * Hands one client packet to the exchange on the auth executor (caching_sha2_password's full path
   * runs thousands of SHA-256 rounds, RSA a private-key operation: milliseconds to seconds that
   * would stall every connection of this event loop), then answers on the event loop. Until then
   * the connection is VERIFYING.
   */
  private void verify(ChannelHandlerContext ctx, byte[] packet, int reply) {
    state = State.VERIFYING;
    AuthExchange current = exchange;
    EventExecutor loop = ctx.executor();
    try {
      server.authExecutor.execute(
          () -> {
            AuthStep step;
            try {
              step = current.next(packet);
            } catch (RuntimeException e) {
              LOG.warn(
                  "Connection {}: authentication of '{}' failed", connectionId, response.user(), e);
              step = new AuthStep.Reject(true, "authentication failed: " + e);
            }
            AuthStep answer = step;
            if (loop.inEventLoop()) {
              verified(ctx, answer, reply);
            } else {
              try {
                loop.execute(() -> verified(ctx, answer, reply));
              } catch (RejectedExecutionException e) {
                // The server is closing: the connection goes with it.
              }
            }
          });
    } catch (RejectedExecutionException e) {
      state = State.DONE;
      LOG.info(
          "Connection {} from {}: cannot check the password, the server is closing",
          connectionId,
          host);
      Packets.failAndClose(ctx, reply, ErrorMessages.tooManyConnections());
    }
  }

  private void verified(ChannelHandlerContext ctx, AuthStep step, int reply) {
    if (state != State.VERIFYING || !ctx.channel().isActive()) {
      return;
    }
    state = State.AUTH;
    step(ctx, step, reply);
  }

  private void step(ChannelHandlerContext ctx, AuthStep step, int reply) {
    if (step instanceof AuthStep.MoreData more) {
      Packets.write(ctx, reply, new AuthMoreData(more.data()).encode());
      ctx.flush();
    } else if (step instanceof AuthStep.Accept accept) {
      int seq = reply;
      if (accept.moreDataBeforeOk() != null) {
        seq = Packets.write(ctx, seq, new AuthMoreData(accept.moreDataBeforeOk()).encode());
      }
      if (server.config.requireSecureTransport() && !secure) {
        // MySQL checks require_secure_transport after the password (acl_authenticate): a wrong
        // password over plain
        // TCP is still 1045, a right one 3159 (after caching_sha2_password's "fast auth success",
        // if it came).
        state = State.DONE;
        LOG.info(
            "Connection {}: '{}'@'{}' proved the password without TLS; refused, TLS is required",
            connectionId,
            response.user(),
            host);
        Packets.failAndClose(ctx, seq, ErrorMessages.secureTransportRequired());
        return;
      }
      Packets.write(ctx, seq, okAfterLogin().encode());
      ctx.flush();
      loggedIn(ctx);
      if (ctx.pipeline().get(ServerPipeline.DECODER) == null) {
        useCommandDecoders(ctx);
      }
    } else if (step instanceof AuthStep.Reject reject) {
      state = State.DONE;
      server.stats.aborted.incrementAndGet();
      server.throttle.recordFailure(host);
      LOG.info(
          "Connection {}: access denied for '{}'@'{}' ({})",
          connectionId,
          response.user(),
          host,
          reject.reason());
      Packets.failAndClose(
          ctx, reply, ErrorMessages.accessDenied(response.user(), host, reject.passwordUsed()));
    }
  }

  /**
   * The OK that ends a login. Over TLS its info carries the plugin's {@link CertificateProof}, as a
   * MariaDB 11.4+ server sends it whatever the client: MariaDB clients that could not verify the
   * certificate by a CA check it, others ignore the info of this OK. The scramble is the
   * greeting's, which an auth switch repeats.
   */
  private OkPacket okAfterLogin() {
    if (!secure) {
      return OkPacket.ok();
    }
    return plugin
        .certificateProof(account.credential(), scramble, server.tls.certificateSha256())
        .map(proof -> new OkPacket(0, 0, OkPacket.SERVER_STATUS_AUTOCOMMIT, 0, proof))
        .orElseGet(OkPacket::ok);
  }

  private void loggedIn(ChannelHandlerContext ctx) {
    state = State.DONE;
    server.throttle.recordSuccess(host);
    if (secure) {
      server.tlsLogins.incrementAndGet();
    }
    SslHandler tls = ctx.pipeline().get(SslHandler.class);
    String tlsVersion = tls == null ? "" : tls.engine().getSession().getProtocol();
    String tlsCipher =
        tls == null ? "" : TlsNames.openSsl(tls.engine().getSession().getCipherSuite());
    ClientContext client =
        new ClientContext(
            account.user(),
            account.host().text(),
            host,
            connectionId,
            account.privileges(),
            tlsVersion,
            tlsCipher);
    ConnectionRegistry.Entry process =
        server.connections.register(
            connectionId,
            account.user(),
            Packets.hostAndPortOf(ctx.channel().remoteAddress()),
            ctx.channel());
    ClientConnection connection =
        new ClientConnection(connectionId, client, capabilities, secure, process);
    if (ctx.pipeline().get(ServerPipeline.TRAFFIC) instanceof TrafficCounter traffic) {
      connection.session.traffic(traffic);
    }
    if (CapabilityFlags.has(capabilities, CapabilityFlags.CLIENT_IGNORE_SPACE)) {
      server.responder.ignoreSpace(connection.session);
    }
    if (response.database() != null && !response.database().isEmpty()) {
      connection.session.database(response.database());
    }
    LOG.debug(
        "Connection {}: '{}'@'{}' logged in{}",
        connectionId,
        account.user(),
        host,
        secure ? " over TLS" : "");
    ServerPipeline.enterCommandPhase(ctx.pipeline(), server, connection);
  }

  private void useCommandDecoders(ChannelHandlerContext ctx) {
    ChannelPipeline p = ctx.pipeline();
    String frame =
        p.get(ServerPipeline.FRAME) != null ? ServerPipeline.FRAME : ServerPipeline.FRAME_TLS;
    p.addAfter(frame, ServerPipeline.DECODER, new PacketDecoder(server.config.maxPacketBytes()));
    p.addAfter(
        ServerPipeline.DECODER,
        ServerPipeline.AGGREGATOR,
        new PacketAggregator(server.config.maxPacketBytes()));
    p.remove(frame);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof IdleStateEvent) {
      LOG.info(
          "Connection {} from {}: no login within {} s; closing",
          connectionId,
          host,
          server.config.connectTimeout().toSeconds());
      ctx.close();
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Throwable root =
        cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    LOG.info("Connection {} from {} failed during login: {}", connectionId, host, root.toString());
    ctx.close();
  }
}
