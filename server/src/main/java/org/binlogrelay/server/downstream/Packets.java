package org.binlogrelay.server.downstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.packet.ErrPacket;
import org.binlogrelay.protocol.packet.MysqlPacket;

/** Writing payloads as packets, and the small conversions handlers share. Stateless. */
final class Packets {
  private Packets() {}

  /** Writes one payload with {@code sequenceId}; returns the next sequence id. */
  static int write(ChannelHandlerContext ctx, int sequenceId, byte[] payload) {
    ctx.write(new MysqlPacket(sequenceId & 0xff, Unpooled.wrappedBuffer(payload)));
    return (sequenceId + 1) & 0xff;
  }

  /** Writes payloads with consecutive sequence ids and flushes; returns the next sequence id. */
  static int writeAll(ChannelHandlerContext ctx, int sequenceId, List<byte[]> payloads) {
    int seq = sequenceId;
    for (byte[] p : payloads) {
      seq = write(ctx, seq, p);
    }
    ctx.flush();
    return seq;
  }

  /** Sends {@code err} and closes the connection once it is written. */
  static void failAndClose(ChannelHandlerContext ctx, int sequenceId, ErrPacket err) {
    ctx.writeAndFlush(new MysqlPacket(sequenceId & 0xff, Unpooled.wrappedBuffer(err.encode())))
        .addListener(ChannelFutureListener.CLOSE);
  }

  /**
   * An ERR sent before the greeting, in the pre-4.1 form a client reads before capabilities are
   * known: {@code 0xFF, u16 code, message} without the SQL state (what MySQL sends for "Too many
   * connections").
   */
  static byte[] preHandshakeErr(ErrPacket err) {
    return new ByteWriter(3 + err.message().length())
        .u8(ErrPacket.HEADER)
        .u16(err.code())
        .string(err.message())
        .toByteArray();
  }

  /** The payload's bytes (copied; the caller releases the packet). */
  static byte[] bytes(MysqlPacket packet) {
    ByteBuf payload = packet.payload();
    return ByteBufUtil.getBytes(payload, payload.readerIndex(), payload.readableBytes(), false);
  }

  /**
   * The client's IP address as MySQL prints it ({@code 127.0.0.1}, {@code ::1}); other addresses as
   * text.
   */
  static String hostOf(SocketAddress address) {
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
      String host = inet.getAddress().getHostAddress();
      int zone = host.indexOf('%');
      return zone < 0 ? host : host.substring(0, zone);
    }
    return String.valueOf(address);
  }

  /** {@code address:port}, as the Host column of SHOW PROCESSLIST shows a client. */
  static String hostAndPortOf(SocketAddress address) {
    if (address instanceof InetSocketAddress inet) {
      return hostOf(address) + ":" + inet.getPort();
    }
    return String.valueOf(address);
  }
}
