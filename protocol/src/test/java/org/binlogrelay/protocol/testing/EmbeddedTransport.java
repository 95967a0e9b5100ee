package org.binlogrelay.protocol.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Test side: {@link WireClient}'s packets through an {@link EmbeddedChannel}, written in one byte
 * at a time when asked. Not thread-safe.
 */
public final class EmbeddedTransport implements WireClient.Transport {
  private final EmbeddedChannel channel;
  private final boolean byteByByte;
  private final Deque<WireClient.Packet> received = new ArrayDeque<>();
  private ByteBuf pending = Unpooled.buffer();

  public EmbeddedTransport(EmbeddedChannel channel, boolean byteByByte) {
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
  public WireClient.Packet receive() {
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
      received.add(new WireClient.Packet(s, payload));
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
