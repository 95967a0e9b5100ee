package org.binlogrelay.server.downstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;
import org.binlogrelay.protocol.packet.MysqlPacket;

/**
 * Frames exactly one packet, the client's first (an SSLRequest or a HandshakeResponse41), and then
 * decodes nothing more: the bytes after it stay buffered until the handler replaces this decoder,
 * and Netty hands them to the next handler on removal. That is what makes the switch to TLS safe: a
 * client sends its TLS ClientHello right behind the SSLRequest, often in the same TCP segment, and
 * those bytes must reach the {@code SslHandler}, not a packet decoder.
 *
 * <p>States: {@code HEADER} (4 bytes, length checked against the limit before anything is kept),
 * {@code PAYLOAD}, {@code DONE}. One instance per channel; event loop only.
 */
final class HandshakeFrameDecoder extends ByteToMessageDecoder {
  private enum State {
    HEADER,
    PAYLOAD,
    DONE
  }

  private final int maxPayloadBytes;
  private State state = State.HEADER;
  private int length;
  private int sequenceId;

  HandshakeFrameDecoder(int maxPayloadBytes) {
    this.maxPayloadBytes = maxPayloadBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (state == State.HEADER) {
      if (in.readableBytes() < MysqlPacket.HEADER_SIZE) {
        return;
      }
      length = in.readUnsignedMediumLE();
      sequenceId = in.readUnsignedByte();
      if (length > maxPayloadBytes) {
        state = State.DONE;
        in.skipBytes(in.readableBytes());
        throw new TooLongFrameException(
            "handshake packet of " + length + " bytes exceeds " + maxPayloadBytes);
      }
      state = State.PAYLOAD;
    }
    if (state == State.PAYLOAD && in.readableBytes() >= length) {
      out.add(new MysqlPacket(sequenceId, in.readRetainedSlice(length)));
      state = State.DONE;
    }
  }
}
