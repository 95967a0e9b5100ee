package org.binlogrelay.server.serving;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Back-pressure of one dump stream, as a handler at the end of the connection's pipeline:
 *
 * <ul>
 *   <li>the stream reads from the store only while {@link Channel#isWritable()}: Netty's outbound
 *       buffer counts the buffers written and not yet sent against the channel's high water mark;
 *   <li>file regions count as 0 bytes there (Netty's size estimator), so their bytes are counted
 *       here and, above the high water mark, make the channel unwritable through a user-defined
 *       writability bit, until they drop below the low water mark;
 *   <li>when the channel becomes writable again, the stream resumes ({@code onWritable});
 *   <li>a channel that stays unwritable for the stall timeout belongs to a replica that stopped
 *       reading: {@code onStalled} drops it (MySQL's {@code net_write_timeout}).
 * </ul>
 *
 * <p>Not thread-safe: the channel's event loop owns it.
 */
final class FlowControl extends ChannelInboundHandlerAdapter {
  /** Bit of the channel's user-defined writability that stands for file regions in flight. */
  private static final int REGIONS_BIT = 1;

  private final Channel channel;
  private final Duration stallTimeout;
  private final Runnable onWritable;
  private final Runnable onStalled;
  private final Runnable onInactive;
  private long regionBytesInFlight;
  private ScheduledFuture<?> stallTimer;
  private volatile long unwritableEpisodes;

  FlowControl(
      Channel channel,
      Duration stallTimeout,
      Runnable onWritable,
      Runnable onStalled,
      Runnable onInactive) {
    this.channel = channel;
    this.stallTimeout = stallTimeout;
    this.onWritable = onWritable;
    this.onStalled = onStalled;
    this.onInactive = onInactive;
  }

  /**
   * A file region of {@code bytes} was written; {@code done} completes when Netty sent or dropped
   * it.
   */
  void regionWritten(long bytes, ChannelFuture done) {
    regionBytesInFlight += bytes;
    if (regionBytesInFlight >= channel.config().getWriteBufferHighWaterMark()) {
      setRegionsWritable(false);
    }
    done.addListener(
        f -> {
          regionBytesInFlight -= bytes;
          if (regionBytesInFlight <= channel.config().getWriteBufferLowWaterMark()) {
            setRegionsWritable(true);
          }
        });
  }

  /** Bytes waiting to be sent: buffers in Netty's outbound buffer and regions in flight. */
  long pendingBytes() {
    ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
    return (buffer == null ? 0 : buffer.totalPendingWriteBytes()) + regionBytesInFlight;
  }

  /**
   * How many times the channel became unwritable: the replica read slower than the stream sent. Any
   * thread.
   */
  long unwritableEpisodes() {
    return unwritableEpisodes;
  }

  /** Stops the stall timer (the stream ended). */
  void cancel() {
    if (stallTimer != null) {
      stallTimer.cancel(false);
      stallTimer = null;
    }
  }

  private void setRegionsWritable(boolean writable) {
    ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
    if (buffer != null && buffer.getUserDefinedWritability(REGIONS_BIT) != writable) {
      buffer.setUserDefinedWritability(REGIONS_BIT, writable);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    if (channel.isWritable()) {
      cancel();
      onWritable.run();
    } else if (stallTimer == null) {
      unwritableEpisodes++;
      stallTimer =
          channel.eventLoop().schedule(this::stalled, stallTimeout.toNanos(), TimeUnit.NANOSECONDS);
    }
    super.channelWritabilityChanged(ctx);
  }

  private void stalled() {
    stallTimer = null;
    if (!channel.isWritable()) {
      onStalled.run();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    cancel();
    onInactive.run();
    super.channelInactive(ctx);
  }
}
