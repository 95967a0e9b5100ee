package org.binlogrelay.server.downstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import org.binlogrelay.server.downstream.sql.SessionVariables;

/**
 * First in every connection's pipeline: counts the bytes read from and written to the socket (TLS
 * records included, zero-copy file regions too), for the connection's {@code SHOW SESSION STATUS}
 * and the server's {@code Bytes_sent} / {@code Bytes_received}. One per channel; the counts are
 * written on its event loop and read there ({@link SessionVariables.Traffic}) or summed across
 * connections through {@link ConnectionStats}'s adders.
 */
final class TrafficCounter extends ChannelDuplexHandler implements SessionVariables.Traffic {
  private final ConnectionStats stats;
  private long sent;
  private long received;

  TrafficCounter(ConnectionStats stats) {
    this.stats = stats;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    long n = size(msg);
    received += n;
    stats.received.add(n);
    super.channelRead(ctx, msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
      throws Exception {
    long n = size(msg);
    sent += n;
    stats.sent.add(n);
    super.write(ctx, msg, promise);
  }

  private static long size(Object msg) {
    if (msg instanceof ByteBuf b) {
      return b.readableBytes();
    }
    if (msg instanceof ByteBufHolder h) {
      return h.content().readableBytes();
    }
    if (msg instanceof FileRegion r) {
      return r.count() - r.transferred();
    }
    return 0;
  }

  @Override
  public long bytesSent() {
    return sent;
  }

  @Override
  public long bytesReceived() {
    return received;
  }
}
