package org.binlogrelay.server.downstream;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.time.Duration;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.server.downstream.sql.ErrorMessages;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First in every pipeline: admits a new connection or refuses it before the greeting, as MySQL
 * does, with ER_CON_COUNT_ERROR (1040, over {@code maxConnections}, or over the host's connection
 * rate, {@link HostConnectRate}, which MySQL clients and replicas also retry) or ER_HOST_IS_BLOCKED
 * (1129, a host the {@link org.binlogrelay.server.downstream.account.LoginThrottle} blocks). A
 * refused connection never reaches the handshake. Counts open connections in {@link
 * ServerState#openConnections}. Refusals are logged at most every 10 s per reason ({@link
 * RefusalLog}).
 *
 * <p>{@code @Sharable} and thread-safe: all state is in {@link ServerState}'s atomics.
 */
@ChannelHandler.Sharable
final class ConnectionGate extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGate.class);

  private final ServerState state;
  private final RefusalLog overLimit;
  private final RefusalLog overRate;
  private final RefusalLog blockedHosts;

  ConnectionGate(ServerState state) {
    this.state = state;
    this.overLimit = new RefusalLog(LOG, state.time);
    this.overRate = new RefusalLog(LOG, state.time);
    this.blockedHosts = new RefusalLog(LOG, state.time);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    state.channels.add(ctx.channel());
    int open = state.openConnections.incrementAndGet();
    state.stats.opened(open);
    ctx.channel().closeFuture().addListener(f -> state.openConnections.decrementAndGet());
    String host = Packets.hostOf(ctx.channel().remoteAddress());
    if (open > state.config.maxConnections()) {
      state.refusedOverLimit.incrementAndGet();
      overLimit.refused(
          "Refused a connection from {}: {} connections open, limit {} (max connections)",
          host,
          open - 1,
          state.config.maxConnections());
      refuse(ctx, ErrorMessages.tooManyConnections());
      return;
    }
    if (state.connectRate != null && !state.connectRate.admit(host)) {
      state.refusedOverRate.incrementAndGet();
      overRate.refused(
          "Refused a connection from {}: more than {} new connections a second from that host (bursts"
              + " of {}; max-connect-rate-per-host)",
          host,
          state.config.maxConnectRatePerHost(),
          state.connectRate.burst());
      refuse(ctx, ErrorMessages.tooManyConnections());
      return;
    }
    Duration blocked = state.throttle.blockedFor(host);
    if (!blocked.isZero()) {
      state.refusedBlocked.incrementAndGet();
      blockedHosts.refused(
          "Refused a connection from {}: blocked for {} s more after {} failed logins",
          host,
          blocked.toSeconds(),
          state.throttle.maxFailures());
      refuse(ctx, ErrorMessages.hostBlocked(host, Math.max(1, blocked.toSeconds())));
      return;
    }
    super.channelActive(ctx);
  }

  private void refuse(ChannelHandlerContext ctx, ErrPacket err) {
    state.stats.aborted.incrementAndGet();
    byte[] payload = Packets.preHandshakeErr(err);
    ctx.writeAndFlush(
            Unpooled.wrappedBuffer(
                new byte[] {
                  (byte) payload.length,
                  (byte) (payload.length >>> 8),
                  (byte) (payload.length >>> 16),
                  0
                },
                payload))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
