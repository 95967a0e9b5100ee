package org.binlogrelay.protocol.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Test side: an allocator that remembers every buffer it hands out, so a test can assert that the
 * pipeline released all of them. Netty's leak detector only logs (and the test classpath has no
 * logging backend), so this is what makes a leak fail a test.
 */
final class TrackingAllocator extends AbstractByteBufAllocator {
  private final UnpooledByteBufAllocator delegate = new UnpooledByteBufAllocator(false, true);
  private final List<ByteBuf> handedOut = new ArrayList<>();

  /** A channel whose handlers allocate from {@code allocator}. */
  static EmbeddedChannel channel(TrackingAllocator allocator, ChannelHandler... handlers) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setAllocator(allocator);
    ch.pipeline().addLast(handlers);
    return ch;
  }

  private <T extends ByteBuf> T track(T buf) {
    handedOut.add(buf);
    return buf;
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.heapBuffer(initialCapacity, maxCapacity));
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return track(delegate.directBuffer(initialCapacity, maxCapacity));
  }

  @Override
  public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
    return track(super.compositeHeapBuffer(maxNumComponents));
  }

  @Override
  public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
    return track(super.compositeDirectBuffer(maxNumComponents));
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }

  int allocations() {
    return handedOut.size();
  }

  /** Fails unless every buffer handed out has been released. */
  void assertAllReleased() {
    for (int i = 0; i < handedOut.size(); i++) {
      assertEquals(
          0,
          handedOut.get(i).refCnt(),
          "buffer #" + i + " of " + handedOut.size() + " not released: leak");
    }
  }
}
